import { useCallback, useEffect, useState } from 'preact/hooks';
import { type ApiFailure, get } from './api.js';
import { failureOf } from './use-submit.js';

export type Loaded<T> = { data?: T; failure?: ApiFailure; loading: boolean; reload: () => void };

/** GETs `path` (again whenever it changes or reload() is called); `null` waits. */
export function useApi<T>(path: string | null): Loaded<T> {
  const [state, setState] = useState<{ data?: T; failure?: ApiFailure; loading: boolean }>({ loading: path !== null });
  const [round, setRound] = useState(0);
  useEffect(() => {
    if (path === null) return;
    let current = true;
    setState((previous) => ({ data: previous.data, loading: true }));
    get<T>(path).then(
      (data) => current && setState({ data, loading: false }),
      // What was shown stays shown beside the error: a transient failure does not empty a view (or stop a poll).
      (failure: unknown) => current && setState((previous) => ({ data: previous.data, failure: failureOf(failure), loading: false })),
    );
    return () => {
      current = false;
    };
  }, [path, round]);
  const reload = useCallback(() => setRound((value) => value + 1), []);
  return { ...state, reload };
}

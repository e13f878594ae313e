import { useState } from 'preact/hooks';
import { ApiFailure } from './api.js';

/** Anything thrown, as the ApiFailure a form shows (the API's refusals are ApiFailures already). */
export function failureOf(error: unknown): ApiFailure {
  return error instanceof ApiFailure ? error : new ApiFailure(0, error instanceof Error ? error.message : String(error));
}

export type Submitting = { failure?: ApiFailure; busy: boolean; submit: (event: Event) => Promise<boolean>; changed: (field?: string) => void };

/**
 * A form's submit handler: runs `work` (its request and what follows it) while `busy`, keeps what
 * it threw as `failure` for the form to show next to the field it names, and clears that once a
 * submit succeeds. `submit` resolves to whether it did. `changed(field)` is called when an input's
 * value changes: a refusal naming that field no longer describes it and is cleared (the browser may
 * block the next submit, and an old refusal must not stay beside a value it was not about);
 * `changed()` without a field clears any refusal (a form of one value).
 */
export function useSubmit(work: () => Promise<void>): Submitting {
  const [failure, setFailure] = useState<ApiFailure>();
  const [busy, setBusy] = useState(false);
  async function submit(event: Event): Promise<boolean> {
    event.preventDefault();
    setBusy(true);
    try {
      await work();
      setFailure(undefined);
      return true;
    } catch (error) {
      setFailure(failureOf(error));
      return false;
    } finally {
      setBusy(false);
    }
  }
  const changed = (field?: string) => setFailure((current) => (field === undefined || current?.field === field ? undefined : current));
  return { failure, busy, submit, changed };
}

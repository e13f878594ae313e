import { type ApiFailure, api } from './api.js';
import { failureOf } from './use-submit.js';

/** Asks first, then DELETEs `path`: a refusal goes to `onFailure` (cleared on success), and the list is read again either way. */
export async function deleteAfterAsking(question: string, path: string, onFailure: (failure?: ApiFailure) => void, reload: () => void): Promise<void> {
  if (!confirm(question)) return;
  try {
    await api('DELETE', path);
    onFailure(undefined);
  } catch (error) {
    onFailure(failureOf(error));
  }
  reload();
}

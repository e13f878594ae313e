/**
 * Wraps an async task so that calls run one at a time, in the order they were
 * made: each starts when the one before has settled. A failure goes to
 * `onError` and does not stop the calls after it.
 */
export function inOrder<T>(task: (item: T) => Promise<void>, onError: (error: unknown) => void): (item: T) => Promise<void> {
  let tail: Promise<void> = Promise.resolve();
  return (item) => {
    tail = tail.then(() => task(item)).catch(onError);
    return tail;
  };
}

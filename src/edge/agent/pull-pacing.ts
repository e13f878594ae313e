// When the edge sends its next config request (docs/edge-protocol.md, "Push: waiting for a new version").

/** The first pause after a failed request; it doubles with each failure in a row, up to the refresh interval. */
export const FIRST_BACKOFF_MS = 500;

export type PullPacing = {
  /** The `wait` the request asked the core to hold it (0: plain polling). */
  waitSeconds: number;
  refreshSeconds: number;
  /** Failed requests in a row, this one included (0 when it got an answer). */
  failures: number;
  /** How long the request took. */
  elapsedMs: number;
  /** A new version was activated or announced while it ran: something happened, so ask again at once. */
  moved: boolean;
};

/**
 * Plain polling asks every refreshSeconds. A long-poll is re-issued at once after an answer the core
 * held or one that brought something new; an answer of "nothing new" that came back early (a core that
 * does not hold requests) is followed by the refresh interval, so the fallback is today's polling and
 * never a busy loop. Failures of a long-poll back off from FIRST_BACKOFF_MS, doubling, up to the refresh interval.
 */
export function nextPullDelayMs(pacing: PullPacing): number {
  const refreshMs = pacing.refreshSeconds * 1000;
  if (pacing.waitSeconds === 0) return refreshMs;
  if (pacing.failures > 0) return Math.min(refreshMs, FIRST_BACKOFF_MS * 2 ** Math.min(pacing.failures - 1, 20));
  // Held: the core's timer starts a little after the edge's, so "about the wait" is judged generously.
  const held = pacing.elapsedMs >= (pacing.waitSeconds * 1000) / 2;
  if (held || pacing.moved) return 0;
  return Math.max(0, refreshMs - pacing.elapsedMs);
}

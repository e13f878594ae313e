import type { Db } from '../db/client.js';

/** How long the publisher waits after consecutive failed publishes: `firstMs` after the first, doubling, at most `maxMs`. */
export type PublishBackoff = { firstMs: number; maxMs: number };

// A failure that will not cure itself (a snapshot over the size limit) costs one build a second at
// first and one every 5 minutes from the tenth failure on (docs/snapshots.md, Failed publishes).
export const PUBLISH_BACKOFF: PublishBackoff = { firstMs: 1000, maxMs: 5 * 60 * 1000 };

/** The wait before the next attempt after `failures` consecutive failed publishes (1 or more). */
export function backoffDelayMs(failures: number, backoff: PublishBackoff): number {
  return Math.min(backoff.maxMs, backoff.firstMs * 2 ** Math.min(Math.max(failures - 1, 0), 30));
}

/** True while a failed publish's backoff runs: nothing is built until `retry_at`, whatever changed meanwhile. */
export function backingOff(state: { retry_at: Date | null }, now = new Date()): boolean {
  return state.retry_at !== null && state.retry_at > now;
}

/**
 * Records a failed publish on the publish_state row, which every core replica reads: the reason,
 * one more consecutive failure (the first keeps `failing_since`) and when the next attempt may run.
 */
export async function recordPublishFailure(db: Db, reason: string, backoff: PublishBackoff, now = new Date()): Promise<Date> {
  const state = await db.publishState.findUniqueOrThrow({ where: { id: 1 }, select: { publish_failures: true, failing_since: true } });
  const failures = state.publish_failures + 1;
  const retryAt = new Date(now.getTime() + backoffDelayMs(failures, backoff));
  await db.publishState.update({
    where: { id: 1 },
    data: { last_error: reason, last_error_at: now, last_attempt_at: now, publish_failures: failures, failing_since: state.failing_since ?? now, retry_at: retryAt },
  });
  return retryAt;
}

/** The columns that end a run of failures, for the update that records a successful publish. */
export const NO_FAILURE = { last_error: null, publish_failures: 0, failing_since: null, retry_at: null } as const;

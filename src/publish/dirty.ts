import type { Db } from '../db/client.js';
import { sqlOf, type Sql } from '../db/sql.js';

const MARK_DIRTY = `
  INSERT INTO publish_state (id, change_seq, dirty_since, dirty_reason, updated_at)
  VALUES (1, 1, $1, $2, $1)
  ON CONFLICT (id) DO UPDATE SET
    change_seq = publish_state.change_seq + 1,
    dirty_since = COALESCE(publish_state.dirty_since, EXCLUDED.dirty_since),
    dirty_reason = EXCLUDED.dirty_reason,
    updated_at = EXCLUDED.updated_at
  RETURNING change_seq`;

/**
 * Marks the published config (edge snapshot and DNS) dirty: moves change_seq on
 * the single publish_state row, keeping the earliest dirty_since. The publisher
 * compares change_seq with published_seq. Called in the same transaction as the
 * change: by the route runner for routes declared `publishes: true`, and by the
 * changes edges cause (purge settlement, origin health). Returns the new change_seq:
 * the change is published in the first version whose published_seq reaches it.
 */
export async function markConfigDirty(db: Db, reason: string, now = new Date()): Promise<bigint> {
  return markConfigDirtyOn(sqlOf(db), reason, now);
}

/** markConfigDirty on a `pg` connection (in its transaction, when it has one open). */
export async function markConfigDirtyOn(sql: Sql, reason: string, now = new Date()): Promise<bigint> {
  const { rows } = await sql.query<{ change_seq: string }>(MARK_DIRTY, [now, reason]);
  return BigInt(rows[0].change_seq);
}

/** How the publisher and the DNS sync wait for a burst of changes: ticks, quiet time, and the longest wait after the first change. */
export type BurstTiming = { tickMs: number; quietMs: number; maxWaitMs: number };
export const BURST_TIMING: BurstTiming = { tickMs: 250, quietMs: 300, maxWaitMs: 3000 };

/** True when the changes counted in `state` have settled: none for `quietMs`, or the first waited `maxWaitMs` already. */
export function burstSettled(state: { updated_at: Date; dirty_since: Date | null }, timing: BurstTiming, now = Date.now()): boolean {
  return now - state.updated_at.getTime() >= timing.quietMs || !state.dirty_since || now - state.dirty_since.getTime() >= timing.maxWaitMs;
}

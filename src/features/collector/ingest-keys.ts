import type pg from 'pg';

const DAY_MS = 86400000;
const PRUNE_BATCH = 5000;

/**
 * Forgets idempotency keys older than the retention (CDN_INGEST_KEY_RETENTION_DAYS),
 * a batch at a time so a large backlog never holds long locks; returns how many.
 * A batch retried after its key was forgotten is counted again.
 */
export async function pruneIngestKeys(pool: pg.Pool, retentionDays: number, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionDays * DAY_MS);
  let total = 0;
  for (;;) {
    const deleted = await pool.query('DELETE FROM ingest_keys WHERE ctid IN (SELECT ctid FROM ingest_keys WHERE created_at < $1 LIMIT $2)', [cutoff, PRUNE_BATCH]);
    total += deleted.rowCount ?? 0;
    if ((deleted.rowCount ?? 0) < PRUNE_BATCH) return total;
  }
}

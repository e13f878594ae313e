import type pg from 'pg';
import { deleteInBatches } from '../../db/delete-in-batches.js';

const DAY_MS = 86400000;

/**
 * Forgets idempotency keys older than the retention (CDN_INGEST_KEY_RETENTION_DAYS),
 * `batchSize` at a time so a large backlog never holds long locks; returns how many.
 * A batch retried after its key was forgotten is counted again.
 */
export async function pruneIngestKeys(pool: pg.Pool, retentionDays: number, batchSize: number, now = new Date()): Promise<number> {
  return deleteInBatches(pool, 'ingest_keys', 'created_at < $1', [new Date(now.getTime() - retentionDays * DAY_MS)], batchSize);
}

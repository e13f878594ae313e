import type pg from 'pg';
import type { Config } from '../config/load.js';
import { deleteInBatches } from '../db/delete-in-batches.js';
import { SSL_JOB_TERMINAL_STATUSES } from '../features/ssl/job-statuses.js';

const DAY_MS = 86400000;

/** One kind of row the retention scheduler prunes: its name in the run's counts and how it is pruned. */
export type RetentionTarget = { name: string; days: (config: Config) => number; prune: (db: pg.Pool | pg.PoolClient, cutoff: Date, batchSize: number) => Promise<number> };

function olderThan(table: string, predicate: string, extra: unknown[] = []): RetentionTarget['prune'] {
  return (db, cutoff, batchSize) => deleteInBatches(db, table, predicate, [cutoff, ...extra], batchSize);
}

/**
 * Ingest idempotency keys: a batch retried after its key is forgotten is counted
 * again. Protocol state that grows with the ingest rate, so the housekeeping
 * forgets them every minute whether or not the scheduler runs.
 */
export const INGEST_KEYS: RetentionTarget = { name: 'ingest_keys', days: (config) => config.ingestKeyRetentionDays, prune: olderThan('ingest_keys', 'created_at < $1') };

/**
 * What is pruned, in this order. Hour and day aggregates are kept for ever: a few
 * rows per domain and day, they are what long-range analytics read once raw events
 * are gone. A minute bucket goes only when it lies wholly before the cutoff, so it
 * never disappears while raw events of its minute remain (usage/recalculate can
 * still rebuild it). Ingest keys are also forgotten every minute by the housekeeping.
 */
export const RETENTION_TARGETS: readonly RetentionTarget[] = [
  { name: 'usage_events', days: (config) => config.analyticsRetentionDays, prune: olderThan('usage_events', 'occurred_at < $1') },
  { name: 'usage_aggregates_minute', days: (config) => config.analyticsRetentionDays, prune: olderThan('usage_aggregates', "bucket = 'minute' AND bucket_start <= $1::timestamptz - interval '1 minute'") },
  { name: 'origin_health_observations', days: (config) => config.analyticsRetentionDays, prune: olderThan('origin_health_observations', 'observed_at < $1') },
  { name: 'security_events', days: (config) => config.securityEventRetentionDays, prune: olderThan('security_events', 'occurred_at < $1') },
  { name: 'dns_sync_events', days: (config) => config.dnsEventRetentionDays, prune: olderThan('dns_sync_events', 'success AND created_at < $1') },
  {
    name: 'ssl_jobs',
    days: (config) => config.sslJobRetentionDays,
    prune: olderThan('ssl_jobs', 'status = ANY($2::text[]) AND COALESCE(finished_at, updated_at) < $1', [[...SSL_JOB_TERMINAL_STATUSES]]),
  },
  INGEST_KEYS,
];

/** Deletes a target's rows older than its retention at `now`, CDN_RETENTION_BATCH_SIZE per statement; returns how many. */
export function pruneTarget(target: RetentionTarget, db: pg.Pool | pg.PoolClient, config: Config, now: Date): Promise<number> {
  return target.prune(db, new Date(now.getTime() - target.days(config) * DAY_MS), config.retentionBatchSize);
}

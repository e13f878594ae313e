import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../config/load.js';
import type { Db } from '../db/client.js';
import { LOCK_KEYS, withAdvisoryLockIfFree } from '../db/advisory-lock.js';
import { recordRetentionRun, recordRetentionStart, retentionDue } from './retention-state.js';
import { pruneTarget, RETENTION_TARGETS } from './retention-targets.js';
import type { CoreMetrics } from '../metrics/core-metrics.js';

export type RetentionOutcome = { outcome: 'ran'; deleted: Record<string, number>; durationMs: number; error: string | null } | { outcome: 'not_due' | 'locked' };

const MAX_TICK_MS = 60000;

// Every target is tried even when one fails; the error names the tables that failed. The deletes
// run on the connection that holds the lock, so a run takes one connection from the pool, not two.
async function pruneAll(client: pg.PoolClient, config: Config, now: Date) {
  const deleted: Record<string, number> = {};
  const errors: string[] = [];
  for (const target of RETENTION_TARGETS) {
    try {
      deleted[target.name] = await pruneTarget(target, client, config, now);
    } catch (error) {
      errors.push(`${target.name}: ${(error as Error).message}`);
    }
  }
  return { deleted, error: errors.length ? errors.join('; ') : null };
}

/**
 * One retention run if one is due (CDN_RETENTION_INTERVAL_SECONDS since the last
 * run of any core started): prunes every target older than its retention at `now`,
 * a batch per statement, and records the run. One core at a time: while another
 * core holds the advisory lock this returns `locked` at once and deletes nothing.
 */
export async function runRetention(db: Db, pool: pg.Pool, config: Config, now = new Date()): Promise<RetentionOutcome> {
  const locked = await withAdvisoryLockIfFree(pool, LOCK_KEYS.retention, async (client): Promise<RetentionOutcome> => {
    if (!(await retentionDue(db, config, now))) return { outcome: 'not_due' };
    await recordRetentionStart(db, now);
    const started = performance.now();
    const { deleted, error } = await pruneAll(client, config, now);
    const durationMs = Math.round(performance.now() - started);
    await recordRetentionRun(db, { startedAt: now, durationMs, deleted, error });
    return { outcome: 'ran', deleted, durationMs, error };
  });
  return locked?.value ?? { outcome: 'locked' };
}

/** `metrics` hears of every run this core makes (docs/metrics.md). */
export type RetentionSchedule = { tickMs?: number; now?: () => Date; metrics?: Pick<CoreMetrics, 'retentionRun'> };

/**
 * Starts the retention scheduler when CDN_RETENTION_PRUNE_ENABLED (otherwise does
 * nothing). Every core checks once a minute (or every interval when shorter)
 * whether a run is due; the shared last-run time and the advisory lock make it one
 * run per interval across all cores. Returns a stop function that waits for a
 * running run.
 */
export function startRetention(db: Db, pool: pg.Pool, config: Config, logger: Logger, schedule: RetentionSchedule = {}): () => Promise<void> {
  if (!config.retentionPruneEnabled) return async () => {};
  const clock = schedule.now ?? (() => new Date());
  let running: Promise<void> | undefined;
  const tick = async () => {
    const result = await runRetention(db, pool, config, clock()).catch((error: unknown) => {
      schedule.metrics?.retentionRun('error');
      throw error;
    });
    schedule.metrics?.retentionRun(result);
    if (result.outcome !== 'ran') return;
    if (result.error) logger.warn({ deleted: result.deleted, durationMs: result.durationMs, err: result.error }, 'retention run failed for some tables');
    else logger.info({ deleted: result.deleted, durationMs: result.durationMs }, 'retention run done');
  };
  const timer = setInterval(
    () => {
      running ??= tick()
        .catch((error: Error) => logger.warn({ err: error.message }, 'retention run failed'))
        .finally(() => {
          running = undefined;
        });
    },
    schedule.tickMs ?? Math.min(MAX_TICK_MS, config.retentionIntervalSeconds * 1000),
  );
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

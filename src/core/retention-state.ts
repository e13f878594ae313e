import type { Config } from '../config/load.js';
import type { Db } from '../db/client.js';
import { unixSeconds } from '../http/timestamps.js';

export type RetentionRun = { startedAt: Date; durationMs: number; deleted: Record<string, number>; error: string | null };

/** Whether a run is due at `now`: never ran, or the last run started at least CDN_RETENTION_INTERVAL_SECONDS ago. */
export async function retentionDue(db: Db, config: Config, now: Date): Promise<boolean> {
  const state = await db.retentionState.findUnique({ where: { id: 1 } });
  return !state?.last_started_at || now.getTime() - state.last_started_at.getTime() >= config.retentionIntervalSeconds * 1000;
}

/**
 * Records that a run started, before it deletes anything: the run shows as in
 * progress (no finish time), and a core that crashes mid-run does not make every
 * other core start one at once.
 */
export async function recordRetentionStart(db: Db, startedAt: Date): Promise<void> {
  const data = { last_started_at: startedAt, last_finished_at: null, last_duration_ms: null, last_deleted: {}, last_error: null };
  await db.retentionState.upsert({ where: { id: 1 }, create: { id: 1, ...data }, update: data });
}

/** Records how a run ended: when, how long, rows deleted per table and its error (null when it succeeded). */
export async function recordRetentionRun(db: Db, run: RetentionRun): Promise<void> {
  const finishedAt = new Date(run.startedAt.getTime() + run.durationMs);
  const data = {
    last_started_at: run.startedAt,
    last_finished_at: finishedAt,
    last_duration_ms: run.durationMs,
    last_deleted: run.deleted,
    last_error: run.error,
    ...(run.error ? {} : { last_success_at: finishedAt }),
  };
  await db.retentionState.upsert({ where: { id: 1 }, create: { id: 1, ...data }, update: data });
}

/**
 * The retention scheduler as readiness and the overview show it: whether this core
 * runs it, its settings, and the last run of whichever core ran it.
 */
export async function retentionStatus(db: Db, config: Config) {
  const state = await db.retentionState.findUnique({ where: { id: 1 } });
  const nextRun = config.retentionPruneEnabled ? (state?.last_started_at ? new Date(state.last_started_at.getTime() + config.retentionIntervalSeconds * 1000) : null) : null;
  return {
    enabled: config.retentionPruneEnabled,
    interval_seconds: config.retentionIntervalSeconds,
    batch_size: config.retentionBatchSize,
    last_run: state?.last_started_at
      ? {
          started_at: unixSeconds(state.last_started_at),
          finished_at: unixSeconds(state.last_finished_at),
          duration_ms: state.last_duration_ms,
          deleted: state.last_deleted,
          error: state.last_error,
        }
      : null,
    last_success_at: unixSeconds(state?.last_success_at),
    next_run_at: unixSeconds(nextRun),
  };
}

// The canary rollout's core loop (docs/rollout.md): starts a bake for each new version, judges the
// baking one from the canaries' heartbeats, promotes it to the fleet or fails it (the canaries then
// go back to the fleet version), and does nothing while a failed version waits for an operator.
// One core at a time decides, under an advisory lock: several core replicas are safe.
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Db } from '../../db/client.js';
import { LOCK_KEYS, withAdvisoryLockIfFree } from '../../db/advisory-lock.js';
import { transaction } from '../../db/sql.js';
import { groupValues } from '../settings/store.js';
import { judgeCanary, pickCanaries, totalsOf, type RolloutSettings, type VersionCount } from './canary-decision.js';
import { FORGET_SILENT_EDGE_SECONDS } from './service.js';

/** What one evaluation did, for logs and tests. */
export type CanaryStep = { action: 'off' | 'disabled' | 'fleet_set' | 'idle' | 'held' | 'started' | 'promoted' | 'failed' | 'waiting'; version?: number; reason?: string };

type Pool = { edge_id: string; labels: string[]; version_counters: VersionCount[] }[];

async function rolloutSettings(db: Db): Promise<RolloutSettings> {
  return (await groupValues(db, 'rollout')) as RolloutSettings;
}

async function poolOf(db: Db, freshSeconds: number, now: Date): Promise<Pool> {
  const since = new Date(now.getTime() - Math.min(freshSeconds, FORGET_SILENT_EDGE_SECONDS) * 1000);
  const rows = await db.edgeNode.findMany({ where: { enabled: true, last_heartbeat_at: { gte: since } }, select: { edge_id: true, labels: true, version_counters: true }, orderBy: { edge_id: 'asc' } });
  return rows.map((row) => ({ edge_id: row.edge_id, labels: row.labels ?? [], version_counters: Array.isArray(row.version_counters) ? (row.version_counters as VersionCount[]) : [] }));
}

// Rollout turned off: every edge gets the newest version again, and a bake in progress ends as aborted.
async function turnOff(db: Db, now: Date): Promise<CanaryStep> {
  await transaction(db, async (tx) => {
    await tx.configCanary.updateMany({ where: { state: 'baking' }, data: { state: 'aborted', decided_at: now, reason: 'rollout disabled' } });
    await tx.configCanary.updateMany({ where: { state: 'failed' }, data: { state: 'aborted', decided_at: now, decided_by: 'rollout disabled' } });
    await tx.publishState.update({ where: { id: 1 }, data: { fleet_version: null, canary_version: null } });
  });
  return { action: 'disabled' };
}

async function judgeBaking(db: Db, settings: RolloutSettings, version: number, pool: Pool, now: Date): Promise<CanaryStep> {
  const row = await db.configCanary.findUniqueOrThrow({ where: { version } });
  const canaries = new Set(row.canary_edges);
  const canary = totalsOf(version, pool.filter((edge) => canaries.has(edge.edge_id)).map((edge) => edge.version_counters));
  const baseline = totalsOf(row.baseline_version, pool.filter((edge) => !canaries.has(edge.edge_id)).map((edge) => edge.version_counters));
  const verdict = judgeCanary(settings, canary, baseline, (now.getTime() - row.started_at.getTime()) / 1000);
  const numbers = verdict.numbers as object;
  if (verdict.decision === 'wait') {
    await db.configCanary.update({ where: { version }, data: { numbers, reason: verdict.reason } });
    return { action: 'waiting', version, reason: verdict.reason };
  }
  const promoted = verdict.decision === 'promote';
  await transaction(db, async (tx) => {
    await tx.configCanary.update({ where: { version }, data: { state: promoted ? 'promoted' : 'failed', decided_at: now, numbers, reason: verdict.reason } });
    await tx.publishState.update({ where: { id: 1 }, data: promoted ? { fleet_version: version, canary_version: null } : { canary_version: null } });
  });
  return { action: promoted ? 'promoted' : 'failed', version, reason: verdict.reason };
}

// A version newer than the fleet's and than every version that baked goes to the canaries (or
// straight to the fleet when no pool edge is a canary).
async function startBake(db: Db, settings: RolloutSettings, active: number, fleet: number, pool: Pool, now: Date): Promise<CanaryStep> {
  const last = await db.configCanary.findFirst({ orderBy: { version: 'desc' }, select: { version: true } });
  if (active <= fleet || (last && active <= last.version)) return { action: 'idle' };
  const canaries = pickCanaries(pool, settings);
  const direct = canaries.length === 0;
  await transaction(db, async (tx) => {
    await tx.configCanary.create({
      data: { version: active, baseline_version: fleet, state: direct ? 'promoted' : 'baking', canary_edges: canaries, started_at: now, decided_at: direct ? now : null, reason: direct ? 'no pool edge is a canary: promoted at once' : null },
    });
    await tx.publishState.update({ where: { id: 1 }, data: direct ? { fleet_version: active } : { canary_version: active } });
  });
  return direct ? { action: 'promoted', version: active, reason: 'no canary edges' } : { action: 'started', version: active, reason: `canaries ${canaries.join(', ')}` };
}

/** One evaluation, in the core holding the lock (undefined in the others). */
export async function evaluateCanaryRollout(db: Db, pool: pg.Pool, freshSeconds: number, now = new Date()): Promise<CanaryStep | undefined> {
  const done = await withAdvisoryLockIfFree(pool, LOCK_KEYS.canaryRollout, async () => {
    const [settings, state] = await Promise.all([rolloutSettings(db), db.publishState.findUnique({ where: { id: 1 } })]);
    if (!state) return { action: 'off' as const };
    if (!settings.enabled) return state.fleet_version === null && state.canary_version === null ? { action: 'off' as const } : turnOff(db, now);
    if (state.active_version === null) return { action: 'idle' as const };
    // Turned on: the version every edge has been given so far is the fleet's.
    if (state.fleet_version === null) {
      await db.publishState.update({ where: { id: 1 }, data: { fleet_version: state.active_version } });
      return { action: 'fleet_set' as const, version: state.active_version };
    }
    const edges = await poolOf(db, freshSeconds, now);
    if (state.canary_version !== null) return judgeBaking(db, settings, state.canary_version, edges, now);
    const failed = await db.configCanary.findFirst({ where: { state: 'failed' }, orderBy: { version: 'desc' }, select: { version: true } });
    if (failed) return { action: 'held' as const, version: failed.version, reason: 'a failed version waits for an operator' };
    return startBake(db, settings, state.active_version, state.fleet_version, edges, now);
  });
  return done?.value;
}

/** Runs the evaluation every `tickMs`; returns a stop function. */
export function startCanaryLoop(db: Db, pool: pg.Pool, freshSeconds: number, logger: Logger, tickMs = 1000): () => Promise<void> {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = evaluateCanaryRollout(db, pool, freshSeconds)
      .then((step) => {
        if (step && ['started', 'promoted', 'failed', 'disabled'].includes(step.action)) logger.info({ ...step }, `canary rollout: ${step.action}`);
      })
      .catch((error: Error) => logger.warn({ err: error.message }, 'canary rollout evaluation failed'))
      .finally(() => {
        running = undefined;
      });
  }, tickMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

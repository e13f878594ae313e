// An operator's promote and abort of the canary version (docs/rollout.md), and the rollout state
// GET /config/rollout, the overview and the GitOps run show.
import type { Db } from '../../db/client.js';
import { LOCK_KEYS } from '../../db/advisory-lock.js';
import { sqlOf } from '../../db/sql.js';
import { ConflictError } from '../../http/errors.js';
import { unixSeconds } from '../../http/timestamps.js';

type CanaryRow = Awaited<ReturnType<Db['configCanary']['findFirstOrThrow']>>;

/** A canary version as the API shows it. */
export function canaryView(row: CanaryRow) {
  return {
    version: row.version,
    state: row.state,
    baseline_version: row.baseline_version,
    canary_edges: row.canary_edges,
    started_at: unixSeconds(row.started_at),
    decided_at: unixSeconds(row.decided_at),
    decided_by: row.decided_by,
    reason: row.reason,
    numbers: row.numbers,
  };
}

/** The version an operator acts on: the one baking, else the newest failed one (which holds later versions). */
async function pendingCanary(db: Db): Promise<CanaryRow> {
  const row = await db.configCanary.findFirst({ where: { state: { in: ['baking', 'failed'] } }, orderBy: { version: 'desc' } });
  if (!row) throw new ConflictError('no canary version to act on', 'version', 'no version is baking or failed; GET /api/v1/config/rollout shows the rollout state');
  return row;
}

/**
 * Promotes (every edge gets it) or aborts (the canaries go back to the fleet version, and later
 * versions may bake) the baking or failed version, in the request's transaction, under the
 * canary loop's lock so the loop never decides the same version at the same time.
 */
export async function decideCanary(db: Db, decision: 'promote' | 'abort', actor: string, now = new Date()) {
  await sqlOf(db).query('SELECT pg_advisory_xact_lock($1::bigint)', [LOCK_KEYS.canaryRollout]);
  const row = await pendingCanary(db);
  const promote = decision === 'promote';
  const reason = `${promote ? 'promoted' : 'aborted'} by ${actor}${row.state === 'failed' ? ` after it failed: ${row.reason ?? ''}` : ''}`;
  const updated = await db.configCanary.update({ where: { version: row.version }, data: { state: promote ? 'promoted' : 'aborted', decided_at: now, decided_by: actor, reason } });
  const state = await db.publishState.findUniqueOrThrow({ where: { id: 1 }, select: { canary_version: true } });
  await db.publishState.update({
    where: { id: 1 },
    data: { ...(promote ? { fleet_version: row.version } : {}), ...(state.canary_version === row.version ? { canary_version: null } : {}) },
  });
  return canaryView(updated);
}

/**
 * The rollout state: whether canary rollout is on, the fleet and canary versions, the version a
 * failed canary holds later versions at (null when none), and the newest canary versions.
 */
export async function canaryState(db: Db, limit = 5) {
  const [state, rows] = await Promise.all([
    db.publishState.findUnique({ where: { id: 1 }, select: { fleet_version: true, canary_version: true } }),
    db.configCanary.findMany({ orderBy: { version: 'desc' }, take: limit }),
  ]);
  const failed = rows.find((row) => row.state === 'failed') ?? (await db.configCanary.findFirst({ where: { state: 'failed' }, orderBy: { version: 'desc' } }));
  return {
    enabled: state?.fleet_version !== null && state?.fleet_version !== undefined,
    fleet_version: state?.fleet_version ?? null,
    canary_version: state?.canary_version ?? null,
    held_by_failed_version: failed?.version ?? null,
    versions: rows.map(canaryView),
  };
}

/** The canary record of one version, or null when it never went to canaries. */
export async function canaryOf(db: Db, version: number) {
  const row = await db.configCanary.findUnique({ where: { version } });
  return row ? canaryView(row) : null;
}

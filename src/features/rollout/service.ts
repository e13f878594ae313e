import type { Db } from '../../db/client.js';
import { NotFoundError } from '../../http/errors.js';
import { unixSeconds } from '../../http/timestamps.js';

/** Which version a rollout is asked about: the latest, one version, the one publishing a write's change_seq, or a GitOps run's. */
export type RolloutTarget = { kind: 'latest' } | { kind: 'version'; version: number } | { kind: 'change'; change: bigint } | { kind: 'run'; run: bigint };

export type LaggardReason = 'unreachable' | 'reload_failed' | 'behind';
export type Laggard = { edge_id: string; active_version: number | null; reason: LaggardReason; error: string | null; last_heartbeat_at: number | null };

/**
 * An enabled edge silent for longer than this is no longer awaited: a machine taken away
 * without being disabled would otherwise hold every rollout (docs/snapshots.md, Rollout).
 */
export const FORGET_SILENT_EDGE_SECONDS = 3600;

type EdgeRow = Awaited<ReturnType<Db['edgeNode']['findFirstOrThrow']>>;
type SnapshotRow = { version: number; checksum: string; created_at: Date; published_seq: bigint | null };
type Resolved = { snapshot: SnapshotRow | undefined; change: bigint | null };

/** The edges a rollout waits for: enabled ones that sent a heartbeat within FORGET_SILENT_EDGE_SECONDS. */
async function poolEdges(db: Db, now: Date): Promise<EdgeRow[]> {
  const since = new Date(now.getTime() - FORGET_SILENT_EDGE_SECONDS * 1000);
  return db.edgeNode.findMany({ where: { enabled: true, last_heartbeat_at: { gte: since } }, orderBy: { edge_id: 'asc' } });
}

const SNAPSHOT_FIELDS = { version: true, checksum: true, created_at: true, published_seq: true } as const;

// The first stored version covering change_seq `change`: versions only grow, and each covers every change up to its published_seq.
async function versionCovering(db: Db, change: bigint): Promise<SnapshotRow | undefined> {
  return (await db.configSnapshot.findFirst({ where: { published_seq: { gte: change } }, orderBy: { version: 'asc' }, select: SNAPSHOT_FIELDS })) ?? undefined;
}

async function latestVersion(db: Db): Promise<SnapshotRow | undefined> {
  const state = await db.publishState.findUnique({ where: { id: 1 }, select: { active_version: true } });
  if (state?.active_version === null || state?.active_version === undefined) return undefined;
  return (await db.configSnapshot.findUnique({ where: { version: state.active_version }, select: SNAPSHOT_FIELDS })) ?? undefined;
}

// A run that wrote nothing (config_change null) is served once the version active now is.
async function resolve(db: Db, target: RolloutTarget): Promise<Resolved> {
  switch (target.kind) {
    case 'latest':
      return { snapshot: await latestVersion(db), change: null };
    case 'version': {
      const snapshot = await db.configSnapshot.findUnique({ where: { version: target.version }, select: SNAPSHOT_FIELDS });
      if (!snapshot) throw new NotFoundError('config snapshot', String(target.version));
      return { snapshot, change: null };
    }
    case 'change':
      return { snapshot: await versionCovering(db, target.change), change: target.change };
    case 'run': {
      const run = await db.gitopsRun.findUnique({ where: { id: target.run }, select: { config_change: true } });
      if (!run) throw new NotFoundError('gitops run', String(target.run));
      if (run.config_change === null) return { snapshot: await latestVersion(db), change: null };
      return { snapshot: await versionCovering(db, run.config_change), change: run.config_change };
    }
  }
}

function laggardOf(edge: EdgeRow, fresh: boolean): Laggard {
  const reason: LaggardReason = !fresh ? 'unreachable' : edge.config_error ? 'reload_failed' : 'behind';
  return { edge_id: edge.edge_id, active_version: edge.config_version, reason, error: reason === 'reload_failed' ? edge.config_error : null, last_heartbeat_at: unixSeconds(edge.last_heartbeat_at) };
}

/** Whether the edge's last heartbeat is within the freshness window (CDN_EDGE_HEARTBEAT_FRESH_SECONDS). */
export function isFresh(edge: Pick<EdgeRow, 'last_heartbeat_at'>, freshSeconds: number, now: Date): boolean {
  return edge.last_heartbeat_at !== null && now.getTime() - edge.last_heartbeat_at.getTime() <= freshSeconds * 1000;
}

// The newest GitOps commit whose writes this version is the first to publish.
async function commitOf(db: Db, snapshot: SnapshotRow): Promise<string | null> {
  if (snapshot.published_seq === null) return null;
  const before = await db.configSnapshot.findFirst({ where: { version: { lt: snapshot.version }, published_seq: { not: null } }, orderBy: { version: 'desc' }, select: { published_seq: true } });
  const run = await db.gitopsRun.findFirst({
    where: { commit_sha: { not: null }, config_change: { gt: before?.published_seq ?? 0n, lte: snapshot.published_seq } },
    orderBy: { id: 'desc' },
    select: { commit_sha: true },
  });
  return run?.commit_sha ?? null;
}

function summaryOf(serving: number, pool: number, version: number, commit: string | null): string {
  return `${serving} of ${pool} pool edges serve version ${version}${commit ? ` (commit ${commit.slice(0, 12)})` : ''}`;
}

// Nothing published covers the target yet: every pool edge waits, and the publisher's last error says why when it failed.
async function pendingRollout(db: Db, edges: EdgeRow[], change: bigint | null) {
  const state = await db.publishState.findUnique({ where: { id: 1 }, select: { last_error: true } });
  return {
    status: 'pending' as const,
    version: null,
    checksum: null,
    created_at: null,
    commit: null,
    change: change === null ? null : String(change),
    pool_edges: edges.length,
    serving: 0,
    laggards: [],
    edges: [],
    publish_error: state?.last_error ?? null,
    summary: `not published yet${state?.last_error ? `: ${state.last_error}` : ''}`,
  };
}

/**
 * How far a version has reached the pool: how many pool edges serve it (or a later version,
 * which carries its changes too), the laggards and why (heartbeat stale: unreachable; refused
 * a newer snapshot: reload_failed with its error; else behind), and per edge the seconds from
 * the version's creation to its first heartbeat reporting it. Zero pool edges is converged.
 */
export async function configRollout(db: Db, target: RolloutTarget, freshSeconds: number, now = new Date()) {
  const [{ snapshot, change }, edges] = await Promise.all([resolve(db, target), poolEdges(db, now)]);
  if (!snapshot) return pendingRollout(db, edges, change);
  const arrivals = await db.edgeConfigArrival.findMany({ where: { version: snapshot.version } });
  const arrivedAt = new Map(arrivals.map((arrival) => [arrival.edge_id, arrival.first_seen_at]));
  const laggards: Laggard[] = [];
  const perEdge = edges.map((edge) => {
    const fresh = isFresh(edge, freshSeconds, now);
    const serving = fresh && edge.config_version !== null && edge.config_version >= snapshot.version;
    if (!serving) laggards.push(laggardOf(edge, fresh));
    const arrived = arrivedAt.get(edge.edge_id);
    const took = arrived ? Math.max(0, arrived.getTime() - snapshot.created_at.getTime()) / 1000 : null;
    return { edge_id: edge.edge_id, active_version: edge.config_version, serving, took_seconds: took };
  });
  const serving = perEdge.filter((edge) => edge.serving).length;
  const commit = await commitOf(db, snapshot);
  return {
    status: laggards.length === 0 ? ('converged' as const) : ('rolling_out' as const),
    version: snapshot.version,
    checksum: snapshot.checksum,
    created_at: unixSeconds(snapshot.created_at),
    commit,
    change: change === null ? null : String(change),
    pool_edges: edges.length,
    serving,
    laggards,
    edges: perEdge,
    publish_error: null,
    summary: summaryOf(serving, edges.length, snapshot.version, commit),
  };
}

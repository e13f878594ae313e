import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../config/load.js';
import type { Db } from '../db/client.js';
import { LOCK_KEYS, withAdvisoryLock, withAdvisoryLockIfFree } from '../db/advisory-lock.js';
import { inTransaction } from '../db/transaction.js';
import { BURST_TIMING, burstSettled, type BurstTiming } from './dirty.js';
import { backingOff, NO_FAILURE, PUBLISH_BACKOFF, recordPublishFailure, type PublishBackoff } from './publish-backoff.js';
import { servedBody, type ServedBody } from './served-body.js';
import { publishStateRow } from './publish-state-row.js';
import { buildSnapshot, type BuiltSnapshot, type SnapshotDefaults } from './snapshot-builder.js';
import { layoutChunks, layoutSize, type SnapshotLayout } from './snapshot-layout.js';
import { deleteUnusedPieces, readStoredLayout, storeVersion } from './snapshot-store.js';
import type { CoreMetrics } from '../metrics/core-metrics.js';

/** A version being stored: what the core that stores it serves without reading it back. */
export type StoredVersion = { version: number; checksum: string; createdAt: Date; layout: SnapshotLayout };
/**
 * `timings` of a publish that stored a version (ms): from the first change it publishes (the
 * config's dirty_since) to the start of its build, the build, the store (committed at its end),
 * and the pruning of older versions after the commit.
 */
export type PublishTimings = { wait_ms: number | null; build_ms: number; store_ms: number; prune_ms: number };
/** `pruned`: older versions were deleted, so some pieces may be named by none (collectUnusedPieces). `bytes`: the size of a stored version. */
export type PublishResult = { outcome: 'published' | 'up_to_date' | 'unchanged' | 'too_large' | 'backing_off'; version: number | null; detail?: string; timings?: PublishTimings; pruned?: boolean; bytes?: number };

// The rollout's fleet and canary versions are kept whatever their age: edges are served them (docs/rollout.md).
// True when versions were deleted: their pieces no version names are then deleted apart (collectUnusedPieces).
async function pruneSnapshots(db: Db, active: number, keepLast: number, batchSize: number): Promise<boolean> {
  const keep = await db.configSnapshot.findMany({ where: { version: { lt: active } }, orderBy: { version: 'desc' }, take: keepLast, select: { version: true } });
  const oldestKept = keep.length === keepLast && keepLast > 0 ? keep[keep.length - 1].version : keepLast === 0 ? active : 0;
  const state = await db.publishState.findUnique({ where: { id: 1 }, select: { fleet_version: true, canary_version: true } });
  const served = [state?.fleet_version, state?.canary_version].filter((version): version is number => typeof version === 'number');
  let pruned = false;
  for (;;) {
    const doomed = await db.configSnapshot.findMany({ where: { version: { lt: oldestKept, notIn: served } }, select: { version: true }, take: batchSize });
    if (!doomed.length) break;
    await db.configSnapshot.deleteMany({ where: { version: { in: doomed.map((row) => row.version) } } });
    pruned = true;
  }
  return pruned;
}

/**
 * Deletes the pieces no stored version names (snapshot-store.ts), under the publisher's lock when
 * it is free; false when another publisher held it (try again later).
 */
export async function collectUnusedPieces(pool: pg.Pool): Promise<{ deleted: number } | undefined> {
  const done = await withAdvisoryLockIfFree(pool, LOCK_KEYS.publish, (client) => deleteUnusedPieces(client));
  return done && { deleted: done.value };
}

type Stored = { version: number; previous: number | null; built: BuiltSnapshot; seen: bigint; now: Date; source: string; onStored?: (stored: StoredVersion) => void };

/**
 * Stores a version by its pieces (snapshot-store.ts: only those the active version lacks) and
 * activates it in one transaction, moving the purges it carries to in_progress.
 * `onStored` hears of the version before the commit, so it can be ready to serve it
 * when edges hear of the commit; should the commit fail, the version number is
 * stored again by the next publish, and heard of again.
 */
async function storeSnapshot(client: pg.PoolClient, stored: Stored): Promise<void> {
  const { version, built, seen, now, source } = stored;
  await inTransaction(client, async () => {
    const row = { version, checksum: built.checksum, size: built.size, layout: built.layout, source, domainCount: built.domainCount, publishedSeq: seen };
    const createdAt = await storeVersion(client, row, stored.previous);
    stored.onStored?.({ version, checksum: built.checksum, createdAt, layout: built.layout });
    await client.query('UPDATE publish_state SET active_version = $1, published_seq = $2, last_publish_at = $3, last_attempt_at = $3, last_error = NULL, publish_failures = 0, failing_since = NULL, retry_at = NULL, dirty_since = NULL, updated_at = now() WHERE id = 1', [version, seen, now]);
    await client.query("UPDATE purge_requests SET status = 'in_progress', config_version = $1, updated_at = now() WHERE id = ANY($2::text[]) AND status = 'queued'", [version, built.purgeIds]);
  });
}

/** The checksum of the active snapshot `version` (undefined when none is active). */
export async function activeChecksum(db: Db, version: number | null): Promise<string | undefined> {
  if (version === null) return undefined;
  return (await db.configSnapshot.findUnique({ where: { version }, select: { checksum: true } }))?.checksum;
}

/** `onStored`: hears of each version stored, before its commit (storeSnapshot). */
/** `metrics`: hears of every attempt's outcome, and of failures (docs/metrics.md). */
type PublishOptions = { force?: boolean; source?: string; backoff?: PublishBackoff; onStored?: (stored: StoredVersion) => void; metrics?: Pick<CoreMetrics, 'snapshotPublish' | 'snapshotFailed'> };

/**
 * Publishes a new snapshot when the config is dirty: one publisher at a time
 * (advisory lock, safe with several cores). The change counter is read before
 * building, so changes made during the build leave the config dirty for the next
 * round. `force` builds even when nothing is dirty or a failure's backoff runs (a
 * rebuild). The previous active snapshot stays valid until the new one is stored; a
 * checksum equal to the active one's stores nothing, forced or not. A failure (an
 * oversized snapshot, or an error while building or storing) keeps the old one
 * active and is recorded with its backoff, which every replica then waits out.
 */
export async function publishOnce(db: Db, pool: pg.Pool, config: Config, defaults: SnapshotDefaults, options: PublishOptions = {}): Promise<PublishResult> {
  try {
    const result = await publishLocked(db, pool, config, defaults, options);
    options.metrics?.snapshotPublish(result);
    return result;
  } catch (error) {
    options.metrics?.snapshotFailed();
    throw error;
  }
}

async function publishLocked(db: Db, pool: pg.Pool, config: Config, defaults: SnapshotDefaults, options: PublishOptions): Promise<PublishResult> {
  const backoff = options.backoff ?? PUBLISH_BACKOFF;
  return withAdvisoryLock(pool, LOCK_KEYS.publish, async (client) => {
    const state = await publishStateRow(db);
    if (!options.force && state.active_version !== null && state.change_seq <= state.published_seq) return { outcome: 'up_to_date', version: state.active_version };
    // Checked under the lock: a replica that waited for it sees the failure the holder just recorded.
    if (!options.force && backingOff(state)) return { outcome: 'backing_off', version: state.active_version, detail: `retrying at ${state.retry_at!.toISOString()}` };
    try {
      return await buildAndStore({ db, pool, client, config, defaults, source: options.source ?? 'publish', backoff, onStored: options.onStored }, state);
    } catch (error) {
      await recordPublishFailure(db, `publish failed: ${(error as Error).message}`, backoff).catch(() => undefined);
      throw error;
    }
  });
}

type SeenState = { change_seq: bigint; active_version: number | null; dirty_since: Date | null };
type Publishing = { db: Db; pool: pg.Pool; client: pg.PoolClient; config: Config; defaults: SnapshotDefaults; source: string; backoff: PublishBackoff; onStored?: (stored: StoredVersion) => void };

// Builds the snapshot of the config as it stands and stores it, unless it is the active one or too large.
async function buildAndStore(publishing: Publishing, state: SeenState): Promise<PublishResult> {
  const { db, pool, client, config, defaults, source, backoff } = publishing;
  const seen = state.change_seq;
  const now = new Date();
  const started = performance.now();
  const built = await buildSnapshot(db, pool, config, defaults);
  const builtAt = performance.now();
  // Even a forced rebuild stores nothing when the content is the active one: a new version would make every edge download it again.
  // The configuration as it stands is then published, so an earlier failure (too large) is over.
  if ((await activeChecksum(db, state.active_version)) === built.checksum) {
    await db.publishState.update({ where: { id: 1 }, data: { ...NO_FAILURE, published_seq: seen, last_attempt_at: now, dirty_since: seen === state.change_seq ? null : state.dirty_since } });
    // The active version now stands for the changes up to `seen` too (docs/snapshots.md, Rollout).
    await db.configSnapshot.update({ where: { version: state.active_version! }, data: { published_seq: seen }, select: { version: true } });
    return { outcome: 'unchanged', version: state.active_version };
  }
  if (built.size > config.edgeConfigMaxBytes) {
    const detail = `snapshot of ${built.size} bytes exceeds CDN_EDGE_CONFIG_MAX_BYTES (${config.edgeConfigMaxBytes}); version ${state.active_version ?? 'none'} stays active`;
    await recordPublishFailure(db, detail, backoff, now);
    return { outcome: 'too_large', version: state.active_version, detail };
  }
  const version = (state.active_version ?? 0) + 1;
  await storeSnapshot(client, { version, previous: state.active_version, built, seen, now, source, onStored: publishing.onStored });
  const storedAt = performance.now();
  const pruned = await pruneSnapshots(db, version, config.configSnapshotKeepLast, config.configSnapshotPruneBatchSize);
  const wait = state.dirty_since ? Math.max(0, Math.round(now.getTime() - state.dirty_since.getTime())) : null;
  return { outcome: 'published', version, pruned, bytes: built.size, timings: { wait_ms: wait, build_ms: Math.round(builtAt - started), store_ms: Math.round(storedAt - builtAt), prune_ms: Math.round(performance.now() - storedAt) } };
}

/**
 * A version as served to edges: its layout (a delta's newer side), and the whole answer's JSON and
 * gzip, made on first use: an edge that holds the previous version gets a delta, so a new version's
 * whole body is seldom asked for.
 */
export type ServedSnapshot = ServedBody & { version: number; checksum: string; createdAt: Date; layout: SnapshotLayout; size: number };

function servedOf(stored: StoredVersion): ServedSnapshot {
  const { version, checksum, createdAt, layout } = stored;
  const head = Buffer.from(`{"data":{"version":${version},"checksum":"${checksum}","created_at":${Math.floor(createdAt.getTime() / 1000)},"snapshot":`);
  return { version, checksum, createdAt, layout, size: layoutSize(layout), ...servedBody(() => Buffer.concat([head, ...layoutChunks(layout), Buffer.from('}}')])) };
}

async function loadServed(db: Db, version: number): Promise<ServedSnapshot | undefined> {
  const stored = await readStoredLayout(db, version);
  return stored && servedOf({ version, ...stored });
}

/** Versions kept loaded: the active one, and the fleet's while a canary version bakes (docs/rollout.md). */
const SERVED_VERSIONS_KEPT = 2;

/**
 * The snapshots served to edges, cached per version (the newest SERVED_VERSIONS_KEPT). The pulls
 * that arrive while a version loads share one load; the whole answer is made, and compressed off
 * the event loop (tens of MiB take a while), once, when first asked for.
 */
export class ActiveSnapshotCache {
  private readonly loading = new Map<number, Promise<ServedSnapshot | undefined>>();

  async get(db: Db, version: number | null): Promise<ServedSnapshot | undefined> {
    if (version === null) return undefined;
    let snapshot = this.loading.get(version);
    if (!snapshot) {
      snapshot = loadServed(db, version);
      this.keep(version, snapshot);
      snapshot.then(
        (loaded) => this.forgetUnless(version, loaded !== undefined),
        () => this.forgetUnless(version, false),
      );
    }
    return snapshot;
  }

  /** Serves a version this core is storing from the bytes it stores, without reading them back (a version number stored again replaces it). */
  prime(stored: StoredVersion): void {
    this.keep(stored.version, Promise.resolve(servedOf(stored)));
  }

  private keep(version: number, snapshot: Promise<ServedSnapshot | undefined>): void {
    this.loading.set(version, snapshot);
    for (const old of [...this.loading.keys()].sort((a, b) => b - a).slice(SERVED_VERSIONS_KEPT)) this.loading.delete(old);
  }

  // A failed or empty load is not cached, so the next pull tries again.
  private forgetUnless(version: number, keep: boolean): void {
    if (!keep) this.loading.delete(version);
  }
}

/** How the publisher waits for a burst of writes: a tick as DNS's, and a shorter quiet time, since it is woken at each commit. */
export const PUBLISH_TIMING: BurstTiming = { ...BURST_TIMING, quietMs: 100 };

/**
 * How long after a publish that pruned versions the background publisher deletes the pieces they
 * alone named, when nothing is left to publish: not while edges fetch the new version (about 55 ms
 * of database CPU at 10,000 domains).
 */
const COLLECT_PIECES_AFTER_MS = 2000;
const COLLECT_PIECES_OVERDUE_MS = 60_000;

type PublisherOptions = {
  timing?: BurstTiming;
  backoff?: PublishBackoff;
  /** Subscribes to the commits that mark the config dirty (ActiveVersion.onConfigChange). */
  onConfigChange?: (listener: () => void) => void;
  /** Hears of each version this publisher stores, before its commit (the core's ActiveSnapshotCache.prime). */
  onStored?: (stored: StoredVersion) => void;
  metrics?: PublishOptions['metrics'];
};

/**
 * The background publisher: checks the dirty counter every `tickMs`, and `quietMs` after each
 * commit that marks it dirty (when woken by `onConfigChange`), waits for a burst of writes to
 * settle (`quietMs`, at most `maxWaitMs` after the first change) and publishes once for the whole
 * burst. After a failed publish it builds nothing until the failure's backoff has passed (`backoff`,
 * shared by every replica). COLLECT_PIECES_AFTER_MS after a publish that pruned versions, with nothing
 * to publish (or a minute later in any case), it deletes the pieces no version names any more.
 */
export function startPublisher(db: Db, pool: pg.Pool, config: Config, defaults: SnapshotDefaults, logger: Logger, options: PublisherOptions = {}): () => Promise<void> {
  const { timing = PUBLISH_TIMING, backoff = PUBLISH_BACKOFF } = options;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let woken: NodeJS.Timeout | undefined;
  let collectAt: number | undefined;
  const collect = async () => {
    const collected = await collectUnusedPieces(pool);
    if (!collected) return;
    collectAt = undefined;
    logger.debug({ deleted: collected.deleted }, 'unused snapshot pieces deleted');
  };
  const tick = async () => {
    const state = await db.publishState.findUnique({ where: { id: 1 } });
    const dirty = !state || state.active_version === null || state.change_seq > state.published_seq;
    // Waiting for a quiet moment, but not for ever while changes keep coming.
    if (collectAt !== undefined && Date.now() >= collectAt + (dirty ? COLLECT_PIECES_OVERDUE_MS : 0)) await collect();
    if (!dirty || (state && (!burstSettled(state, timing) || backingOff(state)))) return;
    const result = await publishOnce(db, pool, config, defaults, { backoff, onStored: options.onStored, metrics: options.metrics });
    if (result.pruned) collectAt = Date.now() + COLLECT_PIECES_AFTER_MS;
    if (result.outcome === 'published') logger.info({ version: result.version, ...result.timings }, 'config snapshot published');
    else if (result.outcome === 'too_large') logger.error({ detail: result.detail }, 'config snapshot not published');
  };
  // A wake-up during a tick runs another once it ends; an interval tick then is skipped.
  const run = (fromWake: boolean) => {
    if (stopped) return;
    if (running) {
      again ||= fromWake;
      return;
    }
    running = tick()
      .catch((error: Error) => logger.warn({ err: error.message }, 'publisher tick failed'))
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          run(true);
        }
      });
  };
  const timer = setInterval(() => run(false), timing.tickMs);
  timer.unref();
  options.onConfigChange?.(() => {
    clearTimeout(woken);
    woken = setTimeout(() => run(true), timing.quietMs);
    woken.unref();
  });
  return async () => {
    stopped = true;
    clearInterval(timer);
    clearTimeout(woken);
    await running;
  };
}

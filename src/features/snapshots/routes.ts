import type { AppDeps } from '../../http/app.js';
import { prefersGzip } from '../../http/accept-encoding.js';
import { ValidationError } from '../../http/errors.js';
import { parsePaging } from '../../http/paging.js';
import { RawJson, type Route } from '../../http/route.js';
import { unixSeconds } from '../../http/timestamps.js';
import { ActiveSnapshotCache, publishOnce } from '../../publish/publisher.js';
import { SnapshotDeltas } from '../../publish/snapshot-deltas.js';
import { servedVersion } from '../../publish/served-version.js';
import { diffSnapshots, getSnapshot, rollbackSnapshot } from '../../publish/snapshot-history.js';
import { HttpError } from '../../http/errors.js';
import type { SnapshotDefaults } from '../../publish/snapshot-builder.js';
import { cacheDefaults } from '../cache/routes.js';
import { awaitNewerVersion, MAX_WAIT_SECONDS, waitSeconds } from './config-wait.js';
import { sslDefaults } from '../ssl/routes.js';

function ifVersion(query: Record<string, unknown>): number | undefined {
  if (query.if_version === undefined) return undefined;
  if (typeof query.if_version !== 'string' || !/^\d{1,9}$/.test(query.if_version)) throw new ValidationError('if_version', 'if_version must be a snapshot version (integer)');
  return Number(query.if_version);
}

function sinceVersion(query: Record<string, unknown>): number | undefined {
  if (query.since === undefined) return undefined;
  if (typeof query.since !== 'string' || !/^\d{1,9}$/.test(query.since)) throw new ValidationError('since', 'since must be a snapshot version (integer)');
  return Number(query.since);
}

function versionParam(value: string): number {
  if (!/^\d{1,9}$/.test(value)) throw new ValidationError('version', 'version must be an integer');
  return Number(value);
}

// Payload, diff and rollback exist only with CDN_CONFIG_SNAPSHOT_HISTORY_ENABLED; otherwise 404 naming it.
function assertHistory(deps: AppDeps): void {
  if (!deps.config.configSnapshotHistoryEnabled) {
    throw new HttpError(404, 'snapshot history is disabled', undefined, 'set CDN_CONFIG_SNAPSHOT_HISTORY_ENABLED=true to read, diff or roll back snapshots');
  }
}

const ACCEPT_ENCODING = 'Accept-Encoding';

function varyingJson(body: unknown): RawJson {
  return new RawJson(JSON.stringify(body), undefined, ACCEPT_ENCODING);
}

/** Snapshot defaults of the routes' schemas, shared by the builder and the background publisher. */
export function snapshotDefaults(deps: AppDeps): SnapshotDefaults {
  return { cache: cacheDefaults(deps), ssl: sslDefaults(deps) };
}

/** The signed config pull of edges, and the operator's snapshot list and rebuild. */
export function snapshotRoutes(deps: AppDeps): Route[] {
  const active = deps.servedSnapshots ?? new ActiveSnapshotCache();
  const deltas = new SnapshotDeltas();
  const defaults = snapshotDefaults(deps);
  return [
    {
      method: 'get',
      path: '/api/v1/edge/config',
      response: 'edge-config-answer',
      query: [
        { name: 'if_version', description: 'The version the edge holds: answered `not_modified` when it is still the one to serve.', schema: { type: 'integer', minimum: 0 } },
        { name: 'since', description: 'The version the edge holds: answered with the changes since then when they are smaller than the snapshot (docs/edge-protocol.md, "Config delta").', schema: { type: 'integer', minimum: 0 } },
        { name: 'wait', description: `Seconds (0 to ${MAX_WAIT_SECONDS}) to hold an answer that would be "not modified" until a newer version is active.`, schema: { type: 'integer', minimum: 0, maximum: MAX_WAIT_SECONDS } },
      ],
      auth: 'edge',
      direct: true,
      // Every answer says Vary: Accept-Encoding, so a cache between core and edges never hands a gzip body to an edge that did not ask for one.
      // With rollout on, the edge gets the version servedVersion picks for it (docs/rollout.md).
      handler: async ({ db, query, headers, actor }) => {
        const edgeId = actor.type === 'edge' ? actor.edgeId : '';
        const since = sinceVersion(query);
        const wanted = ifVersion(query) ?? since;
        const stopping = await awaitNewerVersion(deps.activeVersion, wanted ?? null, waitSeconds(query), edgeId);
        if (stopping) return stopping;
        const snapshot = await active.get(db, servedVersion(await deps.activeVersion.versions(), edgeId));
        if (!snapshot) return varyingJson({ data: { version: null, not_modified: false, detail: 'no snapshot has been published yet' } });
        if (wanted === snapshot.version) return varyingJson({ data: { version: snapshot.version, checksum: snapshot.checksum, not_modified: true } });
        // An edge on `since` gets the changes since then when they are smaller than the snapshot (docs/edge-protocol.md, "Config delta").
        const answer = (since === undefined ? undefined : await deltas.get(db, snapshot, since)) ?? snapshot;
        const gzip = prefersGzip(headers['accept-encoding']);
        return new RawJson(gzip ? await answer.gzip() : answer.json(), gzip ? 'gzip' : undefined, ACCEPT_ENCODING);
      },
    },
    {
      method: 'get',
      path: '/api/v1/config/snapshots',
      response: 'config-snapshots-answer',
      auth: 'api',
      paged: true,
      handler: async ({ db, query }) => {
        const paging = parsePaging(query);
        const [rows, state] = await Promise.all([
          db.configSnapshot.findMany({ orderBy: { version: 'desc' }, skip: paging.offset, take: paging.limit, select: { version: true, checksum: true, size_bytes: true, source: true, domain_count: true, created_at: true } }),
          db.publishState.findUnique({ where: { id: 1 } }),
        ]);
        return { data: rows.map((row) => ({ ...row, active: row.version === state?.active_version, created_at: unixSeconds(row.created_at) })) };
      },
    },
    {
      method: 'post',
      path: '/api/v1/config/snapshots/diff',
      response: 'post-config-snapshots-diff-answer',
      auth: 'api',
      refusals: [404],
      body: 'snapshot-diff',
      handler: async ({ db, body }) => {
        assertHistory(deps);
        return { data: await diffSnapshots(db, body.from_version, body.to_version) };
      },
    },
    {
      method: 'get',
      path: '/api/v1/config/snapshots/:version',
      response: 'config-snapshots-one-answer',
      auth: 'api',
      handler: async ({ db, params }) => {
        assertHistory(deps);
        return { data: await getSnapshot(db, versionParam(params.version)) };
      },
    },
    {
      method: 'post',
      path: '/api/v1/config/snapshots/:version/rollback',
      response: 'post-config-snapshots-rollback-answer',
      auth: 'api',
      audit: { action: 'snapshot.rollback', target: 'config_snapshot', targetId: ({ params }) => params.version },
      ownTransaction: true,
      // Runs outside the request transaction: it takes the publisher's lock and its own transaction.
      handler: async ({ params }) => {
        assertHistory(deps);
        return { data: await rollbackSnapshot(deps.prisma, deps.pool, versionParam(params.version)) };
      },
    },
    {
      method: 'post',
      path: '/api/v1/config/snapshots/rebuild',
      response: 'post-config-snapshots-rebuild-answer',
      auth: 'api',
      audit: { action: 'snapshot.rebuild', target: 'config_snapshot', targetId: () => 'active' },
      ownTransaction: true,
      // The publisher takes its own lock and transaction, so it runs outside the request's audit transaction.
      // The answer is the outcome and version, and why on a failure (docs/snapshots.md); not the publish's timings.
      handler: async () => {
        const { outcome, version, detail } = await publishOnce(deps.prisma, deps.pool, deps.config, defaults, { force: true, source: 'rebuild', metrics: deps.metrics });
        return { data: { outcome, version, ...(detail === undefined ? {} : { detail }) } };
      },
    },
  ];
}

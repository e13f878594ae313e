// Gauges of the installation's state, read from the shared database when scraped (every replica
// answers the same): edges by state and the versions they serve, zones by sync status, SSL jobs
// and the earliest certificate expiry, the active snapshot version. One read serves a whole scrape
// and is kept STATE_CACHE_MS, so a scrape every 15 s costs a handful of small queries.
import { Counter, type Registry } from 'prom-client';
import { gaugeReadWhenScraped } from './scraped-gauge.js';
import type pg from 'pg';
import type { Config } from '../config/load.js';
import type { Db } from '../db/client.js';
import { dnsHealth, type DnsHealth } from '../publish/dns/dns-health.js';

const STATE_CACHE_MS = 5000;
/** The newest versions served by fresh edges that get their own series; older ones add up under `older`. */
const VERSIONS_SHOWN = 10;
const DAY_MS = 86_400_000;

type EdgeCounts = { registered: number; in_pool: number; stale: number; reload_failing: number; behind: number };
type InstallationState = {
  edges: EdgeCounts;
  versions: { version: string; edges: number }[];
  dns: DnsHealth;
  sslJobs: { status: string; jobs: number }[];
  earliestExpiry: Date | null;
  activeVersion: number | null;
};

const EDGE_COUNTS = `
  SELECT count(*)::int AS registered,
         count(*) FILTER (WHERE enabled AND health_status = 'healthy' AND last_heartbeat_at >= $1)::int AS in_pool,
         count(*) FILTER (WHERE last_heartbeat_at IS NULL OR last_heartbeat_at < $1)::int AS stale,
         count(*) FILTER (WHERE last_heartbeat_at >= $1 AND config_error IS NOT NULL)::int AS reload_failing,
         count(*) FILTER (WHERE last_heartbeat_at >= $1 AND (config_version IS NULL OR config_version < (SELECT active_version FROM publish_state WHERE id = 1)))::int AS behind
  FROM edge_nodes`;

const VERSIONS_SERVED = `
  SELECT coalesce(config_version::text, 'none') AS version, count(*)::int AS edges
  FROM edge_nodes WHERE last_heartbeat_at >= $1
  GROUP BY config_version ORDER BY config_version DESC NULLS LAST`;

const SSL_JOBS = `SELECT status, count(*)::int AS jobs FROM ssl_jobs GROUP BY status ORDER BY status`;
const EARLIEST_EXPIRY = `SELECT min(not_after) AS not_after FROM ssl_certificates WHERE status = 'active' AND not_after IS NOT NULL`;
const ACTIVE_VERSION = `SELECT active_version FROM publish_state WHERE id = 1`;

// The newest VERSIONS_SHOWN versions, and the edges on any other under `older`: a bounded label set.
function boundedVersions(rows: { version: string; edges: number }[]): { version: string; edges: number }[] {
  const shown = rows.filter((row) => row.version !== 'none').slice(0, VERSIONS_SHOWN);
  const older = rows.filter((row) => !shown.includes(row)).reduce((sum, row) => sum + row.edges, 0);
  return older > 0 ? [...shown, { version: 'older', edges: older }] : shown;
}

async function readState(pool: pg.Pool, db: Db, config: Config, now: Date): Promise<InstallationState> {
  const fresh = new Date(now.getTime() - config.edgeHeartbeatFreshSeconds * 1000);
  const [edges, versions, dns, sslJobs, expiry, active] = await Promise.all([
    pool.query<EdgeCounts>(EDGE_COUNTS, [fresh]),
    pool.query<{ version: string; edges: number }>(VERSIONS_SERVED, [fresh]),
    dnsHealth(db, config),
    pool.query<{ status: string; jobs: number }>(SSL_JOBS),
    pool.query<{ not_after: Date | null }>(EARLIEST_EXPIRY),
    pool.query<{ active_version: number | null }>(ACTIVE_VERSION),
  ]);
  return { edges: edges.rows[0], versions: boundedVersions(versions.rows), dns, sslJobs: sslJobs.rows, earliestExpiry: expiry.rows[0]?.not_after ?? null, activeVersion: active.rows[0]?.active_version ?? null };
}

/** Reads the state at most once per STATE_CACHE_MS; scrapes arriving meanwhile share the read. */
function cachedState(read: () => Promise<InstallationState | undefined>): () => Promise<InstallationState | undefined> {
  let kept: { at: number; state: Promise<InstallationState | undefined> } | undefined;
  return () => {
    if (!kept || Date.now() - kept.at >= STATE_CACHE_MS) kept = { at: Date.now(), state: read() };
    return kept.state;
  };
}

type StateSource = { pool: pg.Pool; db: Db; config: Config };

/**
 * Registers the state gauges on `registry`. A failed read leaves them empty for that scrape and
 * counts cdn_metrics_state_read_failures_total; the scrape itself still answers.
 */
export function registerStateGauges(registry: Registry, source: StateSource): void {
  const failures = new Counter({ name: 'cdn_metrics_state_read_failures_total', help: 'Scrapes whose read of the installation state from the database failed (the state gauges are then absent).', registers: [registry] });
  const state = cachedState(() =>
    readState(source.pool, source.db, source.config, new Date()).catch(() => {
      failures.inc();
      return undefined;
    }),
  );
  const edgesHelp = 'Registered edges by state: registered (all), in_pool (enabled, healthy, fresh), stale (no heartbeat within CDN_EDGE_HEARTBEAT_FRESH_SECONDS), reload_failing (fresh, refusing a newer snapshot), behind (fresh, serving an older version than the active one).';
  gaugeReadWhenScraped(registry, { name: 'cdn_edges', help: edgesHelp, labelNames: ['state'] }, async (gauge) => {
    gauge.reset();
    const edges = (await state())?.edges;
    if (edges) for (const [name, count] of Object.entries(edges)) gauge.set({ state: name }, count);
  });
  const versionsHelp = 'Fresh edges by the snapshot version they serve (the newest ten; others under version="older", none yet under "none").';
  gaugeReadWhenScraped(registry, { name: 'cdn_edges_by_config_version', help: versionsHelp, labelNames: ['version'] }, async (gauge) => {
    gauge.reset();
    for (const row of (await state())?.versions ?? []) gauge.set({ version: row.version }, row.edges);
  });
  gaugeReadWhenScraped(registry, { name: 'cdn_dns_zones', help: 'Zones by sync status (in_sync, pending, failing); absent while DNS publishing is off.', labelNames: ['status'] }, async (gauge) => {
    gauge.reset();
    const dns = (await state())?.dns;
    if (dns?.publishing === 'on') for (const status of ['in_sync', 'pending', 'failing'] as const) gauge.set({ status }, dns[status]);
  });
  const jobsHelp = 'SSL jobs by status (queued, running, and the finished ones kept CDN_SSL_JOB_RETENTION_DAYS: succeeded, failed, cancelled).';
  gaugeReadWhenScraped(registry, { name: 'cdn_ssl_jobs', help: jobsHelp, labelNames: ['status'] }, async (gauge) => {
    gauge.reset();
    for (const row of (await state())?.sslJobs ?? []) gauge.set({ status: row.status }, row.jobs);
  });
  // A gauge without labels is always written: NaN says "none", and compares false in any alert rule.
  gaugeReadWhenScraped(registry, { name: 'cdn_ssl_earliest_expiry_days', help: 'Days until the earliest expiry among active certificates (negative once expired); NaN when there is none.' }, async (gauge) => {
    const expiry = (await state())?.earliestExpiry;
    gauge.set(expiry ? (expiry.getTime() - Date.now()) / DAY_MS : NaN);
  });
  gaugeReadWhenScraped(registry, { name: 'cdn_snapshot_active_version', help: 'The active (newest published) snapshot version; NaN before the first publish.' }, async (gauge) => {
    gauge.set((await state())?.activeVersion ?? NaN);
  });
}

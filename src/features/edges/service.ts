import { isIPv4, isIPv6 } from 'node:net';
import type { Db } from '../../db/client.js';
import { HttpError, ValidationError } from '../../http/errors.js';
import type { Paging } from '../../http/paging.js';
import { settlePurges, type PurgeFailure } from '../cache/purge-settlement.js';
import { unixSeconds } from '../../http/timestamps.js';
import { markConfigDirty } from '../../publish/dirty.js';
import { anycastAddresses } from '../settings/anycast.js';
import { groupValues } from '../settings/store.js';
import { sqlOf, transaction } from '../../db/sql.js';
import { recordArrival } from '../rollout/arrivals.js';
import type { VersionCount } from '../rollout/canary-decision.js';

export type EdgeReport = { edge_id: string; hostname?: string; public_ip?: string; https_port?: number; region?: string; country?: string; version?: string; healthy?: boolean; config_version?: number | null; config_checksum?: string | null; config_error?: string | null; labels?: string[]; version_counters?: VersionCount[]; purge_acks?: string[]; purge_failures?: PurgeFailure[] };
type NodeRow = Awaited<ReturnType<Db['edgeNode']['findFirstOrThrow']>>;

type InPoolFields = Pick<NodeRow, 'enabled' | 'health_status' | 'last_heartbeat_at'>;

/** In the shared pool: enabled, reported healthy, and a heartbeat within the freshness window. */
export function inPool(node: InPoolFields, freshSeconds: number, now = new Date()): boolean {
  return node.enabled && node.health_status === 'healthy' && node.last_heartbeat_at !== null && now.getTime() - node.last_heartbeat_at.getTime() <= freshSeconds * 1000;
}

function serializeNode(node: NodeRow, freshSeconds: number, now: Date) {
  return {
    ...node,
    in_pool: inPool(node, freshSeconds, now),
    heartbeat_age_seconds: node.last_heartbeat_at ? Math.round((now.getTime() - node.last_heartbeat_at.getTime()) / 1000) : null,
    registered_at: unixSeconds(node.registered_at),
    last_heartbeat_at: unixSeconds(node.last_heartbeat_at),
    last_failure_at: unixSeconds(node.last_failure_at),
    created_at: unixSeconds(node.created_at),
    updated_at: unixSeconds(node.updated_at),
  };
}

function reportedFields(report: EdgeReport) {
  const fields: Record<string, unknown> = {};
  for (const key of ['hostname', 'public_ip', 'https_port', 'region', 'country', 'version'] as const) if (report[key] !== undefined) fields[key] = report[key];
  return fields;
}

function assertSameEdge(report: EdgeReport, edgeId: string): void {
  if (report.edge_id !== edgeId) throw new ValidationError('edge_id', `edge_id ${report.edge_id} differs from the signed X-CDN-Edge-Id ${edgeId}`);
}

/** Registers (or re-registers) an edge: database state only, never waits on DNS. */
export async function registerEdge(db: Db, report: EdgeReport, edgeId: string, tokenId: string, freshSeconds: number, now = new Date()) {
  assertSameEdge(report, edgeId);
  const node = await db.edgeNode.upsert({
    where: { edge_id: edgeId },
    create: { edge_id: edgeId, token_id: tokenId, registered_at: now, ...reportedFields(report) },
    update: { token_id: tokenId, ...reportedFields(report) },
  });
  return serializeNode(node, freshSeconds, now);
}

// The heartbeat in one statement: the edge's row as it was (`before`, for the pool and the
// arrival) and as it is now. $1 the edge, $2 now, $3 the token, $4 the health, $5 labels, $6 counters,
// $7..$12 the register fields (null when not reported: the row keeps what it had), $13..$15 the config
// version, checksum and refusal, each stored only when its flag ($16..$18) says it was reported.
const RECORD_HEARTBEAT = `
  WITH before AS MATERIALIZED (SELECT enabled, health_status, last_heartbeat_at, public_ip, config_version FROM edge_nodes WHERE edge_id = $1),
  saved AS (
    INSERT INTO edge_nodes AS node (edge_id, registered_at, last_heartbeat_at, updated_at, token_id, health_status, labels, version_counters,
      hostname, public_ip, https_port, region, country, version, config_version, config_checksum, config_error)
    VALUES ($1, $2, $2, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
    ON CONFLICT (edge_id) DO UPDATE SET
      last_heartbeat_at = $2, updated_at = $2, token_id = $3, health_status = $4, labels = $5, version_counters = $6, consecutive_failures = 0,
      hostname = COALESCE($7, node.hostname), public_ip = COALESCE($8, node.public_ip), https_port = COALESCE($9, node.https_port),
      region = COALESCE($10, node.region), country = COALESCE($11, node.country), version = COALESCE($12, node.version),
      config_version = CASE WHEN $16 THEN $13 ELSE node.config_version END,
      config_checksum = CASE WHEN $17 THEN $14 ELSE node.config_checksum END,
      config_error = CASE WHEN $18 THEN $15 ELSE node.config_error END
    RETURNING node.*
  )
  SELECT saved.*, before.enabled IS NOT NULL AS existed, before.enabled AS before_enabled, before.health_status AS before_health_status,
    before.last_heartbeat_at AS before_last_heartbeat_at, before.public_ip AS before_public_ip, before.config_version AS before_config_version
  FROM saved LEFT JOIN before ON true`;

type HeartbeatRow = NodeRow & { before_enabled: boolean; before_health_status: string; before_last_heartbeat_at: Date | null; before_public_ip: string | null; before_config_version: number | null; existed: boolean };

function heartbeatValues(report: EdgeReport, edgeId: string, tokenId: string, now: Date): unknown[] {
  const reported = <T>(value: T | undefined) => value ?? null;
  return [
    edgeId,
    now,
    tokenId,
    report.healthy === false ? 'unhealthy' : 'healthy',
    // An edge that stops reporting labels or counters has none (docs/rollout.md).
    report.labels ?? [],
    JSON.stringify(report.version_counters ?? []),
    reported(report.hostname),
    reported(report.public_ip),
    reported(report.https_port),
    reported(report.region),
    reported(report.country),
    reported(report.version),
    reported(report.config_version),
    reported(report.config_checksum),
    reported(report.config_error),
    report.config_version !== undefined,
    report.config_checksum !== undefined,
    report.config_error !== undefined,
  ];
}

// The row and what it was before the heartbeat (null for an edge seen for the first time).
function splitHeartbeatRow(row: HeartbeatRow): { node: NodeRow; before: InPoolFields & { public_ip: string | null; config_version: number | null } | null } {
  const { before_enabled, before_health_status, before_last_heartbeat_at, before_public_ip, before_config_version, existed, ...node } = row;
  const before = existed ? { enabled: before_enabled, health_status: before_health_status, last_heartbeat_at: before_last_heartbeat_at, public_ip: before_public_ip, config_version: before_config_version } : null;
  return { node, before };
}

/**
 * Records a heartbeat: the edge's own health, its config version and the time;
 * settles the purges it acknowledged or failed (settlePurges, one transaction).
 * A change of pool membership marks the published config dirty. The row is read and
 * written with one statement on `pg` (every edge sends one every few seconds).
 */
export async function heartbeat(db: Db, report: EdgeReport, edgeId: string, tokenId: string, freshSeconds: number, now = new Date()) {
  assertSameEdge(report, edgeId);
  const sql = sqlOf(db);
  const { rows } = await sql.query<HeartbeatRow>(RECORD_HEARTBEAT, heartbeatValues(report, edgeId, tokenId, now));
  const { node, before } = splitHeartbeatRow(rows[0]);
  // Joining the pool (or moving address) changes what proxied names answer: DNS follows at once, not at the next periodic sync.
  const wasIn = before !== null && inPool(before, freshSeconds, now);
  const isIn = inPool(node, freshSeconds, now);
  if (wasIn !== isIn || (isIn && before?.public_ip !== node.public_ip)) await markConfigDirty(db, 'edge.pool', now);
  if (node.config_version !== null && node.config_version !== before?.config_version) await recordArrival(db, edgeId, node.config_version, now);
  if (report.purge_acks?.length || report.purge_failures?.length) {
    const poolEdgeIds = (await poolMembers(db, freshSeconds, now)).map((member) => member.edge_id);
    const purges = { edgeId, acks: report.purge_acks ?? [], failures: report.purge_failures ?? [], poolEdgeIds, now };
    await transaction(db, (tx) => settlePurges(tx, purges));
  }
  return serializeNode(node, freshSeconds, now);
}

function refusalText(error: unknown): string {
  if (!(error instanceof HttpError)) return 'internal error';
  return `${error.status} ${error.message}${error.field ? ` (${error.field})` : ''}${error.detail ? `: ${error.detail}` : ''}`;
}

/**
 * Records a heartbeat the core refused after authenticating the edge (a non-2xx
 * answer): one more consecutive failure, with why and when. Membership is left to
 * freshness, so a single transient failure does not take the edge out of the pool;
 * the next successful heartbeat resets the count.
 */
export async function recordHeartbeatFailure(db: Db, edgeId: string, error: unknown, now = new Date()): Promise<void> {
  await db.edgeNode.updateMany({ where: { edge_id: edgeId }, data: { consecutive_failures: { increment: 1 }, last_failure: refusalText(error), last_failure_at: now } });
}

/** Every edge with whether it is in the pool. */
export async function listEdges(db: Db, paging: Paging, freshSeconds: number, now = new Date()) {
  const nodes = await db.edgeNode.findMany({ orderBy: { edge_id: 'asc' }, skip: paging.offset, take: paging.limit });
  return nodes.map((node) => serializeNode(node, freshSeconds, now));
}

async function poolMembers(db: Db, freshSeconds: number, now: Date) {
  return (await db.edgeNode.findMany({ orderBy: { edge_id: 'asc' } })).filter((node) => inPool(node, freshSeconds, now));
}

/** The shared pool, overall and by region. */
export async function edgePools(db: Db, freshSeconds: number, now = new Date()) {
  const total = await db.edgeNode.count();
  const members = await poolMembers(db, freshSeconds, now);
  const byRegion: Record<string, string[]> = {};
  for (const node of members) (byRegion[node.region ?? 'unknown'] ??= []).push(node.edge_id);
  return { shared: { members: members.map((node) => node.edge_id), healthy: members.length, total }, by_region: byRegion };
}

type Family = { source: 'anycast' | 'edges'; addresses: string[] };

/**
 * The addresses a proxied record would publish now, per family: the platform
 * anycast addresses where configured, otherwise the public addresses of the
 * edges in the pool; and the pool's edges per country they report, for answers
 * by client location (edges without a country are left out).
 */
export async function proxiedAddresses(db: Db, freshSeconds: number, now = new Date()): Promise<{ ipv4: Family; ipv6: Family; byCountry: Record<string, { ipv4: string[]; ipv6: string[] }> }> {
  const [members, anycast] = await Promise.all([poolMembers(db, freshSeconds, now), anycastAddresses(db)]);
  const ips = members.map((node) => node.public_ip).filter((ip): ip is string => Boolean(ip));
  const family = (anycastList: string[], fromEdges: string[]): Family => (anycastList.length ? { source: 'anycast', addresses: anycastList } : { source: 'edges', addresses: [...new Set(fromEdges)].sort() });
  const byCountry: Record<string, { ipv4: string[]; ipv6: string[] }> = {};
  for (const node of members) {
    if (!node.country || !node.public_ip) continue;
    const entry = (byCountry[node.country.toUpperCase()] ??= { ipv4: [], ipv6: [] });
    if (isIPv4(node.public_ip)) entry.ipv4.push(node.public_ip);
    else if (isIPv6(node.public_ip)) entry.ipv6.push(node.public_ip);
  }
  return { ipv4: family(anycast.ipv4, ips.filter((ip) => isIPv4(ip))), ipv6: family(anycast.ipv6, ips.filter((ip) => isIPv6(ip))), byCountry };
}

/** GET /edges/dns: the shared proxy hostname and the addresses proxied records publish now. */
export async function edgeDns(db: Db, freshSeconds: number, now = new Date()) {
  const [addresses, dns] = await Promise.all([proxiedAddresses(db, freshSeconds, now), groupValues(db, 'dns')]);
  return { hostname: dns.proxied_hostname, ipv4: addresses.ipv4, ipv6: addresses.ipv6 };
}

/** Countries served by edges in the pool, with how many edges each. */
export async function edgeCountries(db: Db, freshSeconds: number, now = new Date()) {
  const counts = new Map<string, number>();
  for (const node of await poolMembers(db, freshSeconds, now)) if (node.country) counts.set(node.country, (counts.get(node.country) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([country, edges]) => ({ country, edges }));
}

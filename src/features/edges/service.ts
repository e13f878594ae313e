import { isIPv4, isIPv6 } from 'node:net';
import type { Db } from '../../db/client.js';
import { HttpError, ValidationError } from '../../http/errors.js';
import type { Paging } from '../../http/paging.js';
import { settlePurges, type PurgeFailure } from '../cache/purge-settlement.js';
import { unixSeconds } from '../../http/timestamps.js';
import { markConfigDirty } from '../../publish/dirty.js';
import { anycastAddresses } from '../settings/anycast.js';
import { groupValues } from '../settings/store.js';
import { transaction } from '../../db/sql.js';
import { recordArrival } from '../rollout/arrivals.js';
import type { VersionCount } from '../rollout/canary-decision.js';

export type EdgeReport = { edge_id: string; hostname?: string; public_ip?: string; https_port?: number; region?: string; country?: string; version?: string; healthy?: boolean; config_version?: number | null; config_checksum?: string | null; config_error?: string | null; labels?: string[]; version_counters?: VersionCount[]; purge_acks?: string[]; purge_failures?: PurgeFailure[] };
type NodeRow = Awaited<ReturnType<Db['edgeNode']['findFirstOrThrow']>>;

/** In the shared pool: enabled, reported healthy, and a heartbeat within the freshness window. */
export function inPool(node: NodeRow, freshSeconds: number, now = new Date()): boolean {
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

/**
 * Records a heartbeat: the edge's own health, its config version and the time;
 * settles the purges it acknowledged or failed (settlePurges, one transaction).
 * A change of pool membership marks the published config dirty.
 */
export async function heartbeat(db: Db, report: EdgeReport, edgeId: string, tokenId: string, freshSeconds: number, now = new Date()) {
  assertSameEdge(report, edgeId);
  const state = {
    ...reportedFields(report),
    token_id: tokenId,
    last_heartbeat_at: now,
    health_status: report.healthy === false ? 'unhealthy' : 'healthy',
    ...(report.config_version !== undefined ? { config_version: report.config_version } : {}),
    ...(report.config_checksum !== undefined ? { config_checksum: report.config_checksum } : {}),
    ...(report.config_error !== undefined ? { config_error: report.config_error } : {}),
    // An edge that stops reporting labels or counters has none (docs/rollout.md).
    labels: report.labels ?? [],
    version_counters: report.version_counters ?? [],
  };
  const before = await db.edgeNode.findUnique({ where: { edge_id: edgeId } });
  const node = await db.edgeNode.upsert({ where: { edge_id: edgeId }, create: { edge_id: edgeId, registered_at: now, ...state }, update: { ...state, consecutive_failures: 0 } });
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

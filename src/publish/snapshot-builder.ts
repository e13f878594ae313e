import type pg from 'pg';
import type { Config } from '../config/load.js';
import type { Db } from '../db/client.js';
import type { CacheSettingsInput } from '../features/cache/settings.js';
import { groupByDomain } from '../features/domains/group-by-domain.js';
import { groupValues } from '../features/settings/store.js';
import type { SslSettingsInput } from '../features/ssl/settings.js';
import { SNAPSHOT_RULE_KINDS, SNAPSHOT_SCHEMA_VERSION, type ConfigSnapshot, type SnapshotDomain, type SnapshotOrigin, type SnapshotRuleKind } from '../shared/snapshot.js';
import { domainFingerprints, DomainPieceCache, type DomainPiece } from './domain-pieces.js';
import { layoutChecksum, layoutSize, type SnapshotLayout } from './snapshot-layout.js';
import { snapshotRules, type RuleRow } from './snapshot-rules.js';

/** `size`: the body's bytes; `domainsSerialized`: how many domains' pieces this build read and serialized (the others were reused). */
export type BuiltSnapshot = { layout: SnapshotLayout; checksum: string; size: number; domainCount: number; domainsSerialized: number; purgeIds: string[] };
export type SnapshotDefaults = { cache: CacheSettingsInput; ssl: Required<SslSettingsInput> };

const RULE_TABLES: Record<SnapshotRuleKind, string> = {
  'ip-rules': 'ip_rules',
  'waf-rules': 'waf_rules',
  'rate-limits': 'rate_limit_rules',
  redirects: 'redirect_rules',
  'page-rules': 'page_rules',
  'cache-rules': 'cache_rules',
  headers: 'header_rules',
};
const CACHE_FIELDS = ['caching_enabled', 'default_edge_ttl_seconds', 'browser_ttl_seconds', 'respect_origin_cache_control', 'query_string_mode', 'stale_while_revalidate_seconds', 'stale_if_error_seconds', 'development_mode', 'targeted_cache_control_header', 'strict_rfc9111'] as const;
const SSL_FIELDS = ['mode', 'always_https', 'min_tls_version', 'hsts_enabled', 'hsts_max_age'] as const;
/** The pieces of this core process's builds (the publisher runs in one core at a time; another core builds everything once). */
const PROCESS_PIECES = new DomainPieceCache();
const ACTIVE = `JOIN domains d ON d.id = t.domain_id AND d.status = 'active' AND d.id = ANY($1::text[])`;

type DomainRow = { id: string; domain: string; zone_name: string; origin_shield_header_name: string | null; origin_shield_secret: string | null; cache: Record<string, unknown> | null; ssl: Record<string, unknown> | null };
type OriginRow = Record<string, unknown> & { domain_id: string };
type CertificateRow = { id: string; domain_id: string; hostnames: string[]; not_after: Date | null; certificate_pem: string; chain_pem: string | null };

function pick<K extends string>(fields: readonly K[], row: Record<string, unknown> | null, defaults: Record<K, unknown>): Record<K, unknown> {
  return Object.fromEntries(fields.map((field) => [field, row ? row[field] : defaults[field]])) as Record<K, unknown>;
}

function snapshotOrigin(row: OriginRow): SnapshotOrigin {
  return {
    id: row.id as string,
    host: row.host as string,
    scheme: row.scheme as string,
    port: row.port as number,
    role: row.role as SnapshotOrigin['role'],
    weight: row.weight as number,
    host_header: row.host_header as string | null,
    health_status: row.health_status as string,
    health_check_path: row.monitored ? (row.health_check_path as string) : null,
    timeouts: { connect_ms: row.connect_timeout_ms as number, read_ms: row.read_timeout_ms as number },
    retries: { max: row.max_retries as number, non_idempotent: row.retry_non_idempotent as boolean, budget_percent: row.retry_budget_percent as number, budget_min_per_second: row.retry_budget_min_per_second as number },
    circuit_breaker: row.circuit_breaker_enabled
      ? { failure_threshold: row.circuit_breaker_failure_threshold as number, window_seconds: row.circuit_breaker_window_seconds as number, cooldown_seconds: row.circuit_breaker_cooldown_seconds as number }
      : null,
    limits: { max_connections: row.max_connections as number | null, max_pending_requests: row.max_pending_requests as number | null },
    shield: row.shield ? { region: row.shield_region as string | null } : null,
  };
}

// One query per table for the given active domains; only the columns and rows an edge uses.
async function readTables(pool: pg.Pool, ids: string[]) {
  const only = [ids];
  const [domains, hostnames, origins, certificates, ...rules] = await Promise.all([
    pool.query<DomainRow>(`
      SELECT d.id, d.domain, d.zone_name, d.origin_shield_header_name, d.origin_shield_secret, to_jsonb(c) AS cache, to_jsonb(s) AS ssl
      FROM domains d LEFT JOIN cache_settings c ON c.domain_id = d.id LEFT JOIN ssl_settings s ON s.domain_id = d.id
      WHERE d.status = 'active' AND d.id = ANY($1::text[])`, only),
    pool.query<{ domain_id: string; name: string }>(`SELECT t.domain_id, t.name FROM dns_records t ${ACTIVE} WHERE t.proxied AND t.enabled AND t.type IN ('A', 'AAAA', 'CNAME')`, only),
    pool.query<OriginRow>(`SELECT t.* FROM origins t ${ACTIVE} WHERE t.enabled AND NOT t.drained ORDER BY t.domain_id, t.role, t.created_at, t.id`, only),
    pool.query<CertificateRow>(`SELECT t.id, t.domain_id, t.hostnames, t.not_after, t.certificate_pem, t.chain_pem FROM ssl_certificates t ${ACTIVE} WHERE t.status = 'active' AND t.certificate_pem IS NOT NULL ORDER BY t.domain_id, t.created_at, t.id`, only),
    ...SNAPSHOT_RULE_KINDS.map((kind) => pool.query<RuleRow>(`SELECT t.* FROM ${RULE_TABLES[kind]} t ${ACTIVE} WHERE t.enabled`, only)),
  ]);
  return { domains: domains.rows, hostnames: groupByDomain(hostnames.rows), origins: groupByDomain(origins.rows), certificates: groupByDomain(certificates.rows), rules: rules.map((result) => groupByDomain(result.rows)) };
}

function fqdn(name: string, zone: string): string {
  return (name === '@' ? zone : `${name}.${zone}`).toLowerCase();
}

type Tables = Awaited<ReturnType<typeof readTables>>;

function snapshotDomain(row: DomainRow, tables: Tables, config: Config, defaults: SnapshotDefaults): SnapshotDomain {
  return {
    id: row.id,
    domain: row.domain,
    hostnames: [...new Set((tables.hostnames.get(row.id) ?? []).map((record) => fqdn(record.name, row.zone_name)))].sort(),
    origin_shield: row.origin_shield_header_name ? { header_name: row.origin_shield_header_name, secret: row.origin_shield_secret } : null,
    origins: (tables.origins.get(row.id) ?? []).map(snapshotOrigin),
    cache: pick(CACHE_FIELDS, row.cache, defaults.cache),
    ssl: pick(SSL_FIELDS, row.ssl, defaults.ssl),
    certificates: (tables.certificates.get(row.id) ?? []).map((certificate) => ({
      id: certificate.id,
      hostnames: certificate.hostnames,
      not_after: certificate.not_after ? Math.floor(certificate.not_after.getTime() / 1000) : null,
      certificate_pem: certificate.certificate_pem,
      chain_pem: certificate.chain_pem,
    })),
    rules: Object.fromEntries(SNAPSHOT_RULE_KINDS.map((kind, index) => [kind, snapshotRules(kind, tables.rules[index].get(row.id) ?? [], config.edgeChallengeDifficulty)])) as SnapshotDomain['rules'],
  };
}

type DomainEntry = { domain: string; piece: DomainPiece };
type SnapshotDomains = { entries: DomainEntry[]; serialized: number };

/**
 * Every active domain's piece, sorted by apex: reused from `pieces` when its rows' fingerprint is
 * unchanged, otherwise read and serialized (only those domains' rows are read).
 */
async function snapshotDomains(pool: pg.Pool, config: Config, defaults: SnapshotDefaults, pieces: DomainPieceCache): Promise<SnapshotDomains> {
  const fingerprints = await domainFingerprints(pool);
  const stale = pieces.stale(fingerprints, { defaults, challenge: config.edgeChallengeDifficulty });
  const built = new Map<string, Buffer>();
  if (stale.length) {
    const tables = await readTables(pool, stale);
    for (const row of tables.domains) built.set(row.id, Buffer.from(JSON.stringify(snapshotDomain(row, tables, config, defaults))));
  }
  pieces.update(fingerprints, stale, built);
  const entries: DomainEntry[] = [];
  for (const { id, domain } of fingerprints) {
    const piece = pieces.get(id);
    // A domain deactivated between the two reads has no piece: the next build (the change marked the config dirty) settles it.
    if (piece) entries.push({ domain, piece });
  }
  return { entries: entries.sort((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0)), serialized: built.size };
}

/**
 * The complete, self-contained data an edge needs (schemas/snapshot/config-snapshot.schema.json):
 * active domains with the hostnames they serve, routable origins with their
 * resilience policy, cache and SSL settings, active certificates and every rule
 * kind compiled for matching; pending purges; the edge-wide settings. Canonical
 * JSON bytes with their SHA-256, content only (no version or time), so an
 * unchanged configuration has an unchanged checksum. Domains come from `pieces`: only the
 * domains whose rows changed since its last build are read and serialized again.
 */
export async function buildSnapshot(db: Db, pool: pg.Pool, config: Config, defaults: SnapshotDefaults, pieces: DomainPieceCache = PROCESS_PIECES): Promise<BuiltSnapshot> {
  const [domains, purges, security, edge] = await Promise.all([
    snapshotDomains(pool, config, defaults, pieces),
    db.purgeRequest.findMany({ where: { status: { in: ['queued', 'in_progress'] } }, orderBy: [{ created_at: 'asc' }, { id: 'asc' }] }),
    groupValues(db, 'security'),
    groupValues(db, 'edge'),
  ]);
  const edgeSection: ConfigSnapshot['edge'] = { challenge_difficulty: config.edgeChallengeDifficulty, security, ...edge };
  const purgeSection: ConfigSnapshot['purges'] = purges.map((purge) => ({ id: purge.id, domain_id: purge.domain_id, scope: purge.scope, value: purge.value, created_at: Math.floor(purge.created_at.getTime() / 1000) }));
  // The bytes JSON.stringify writes for {schema_version, edge, domains, purges}, with each domain's piece as it was serialized.
  const layout: SnapshotLayout = {
    head: Buffer.from(`{"schema_version":${SNAPSHOT_SCHEMA_VERSION},"edge":${JSON.stringify(edgeSection)},"domains":[`),
    pieces: domains.entries.map((entry) => entry.piece.bytes),
    digests: domains.entries.map((entry) => entry.piece.digest),
    tail: Buffer.from(`],"purges":${JSON.stringify(purgeSection)}}`),
  };
  return { layout, checksum: layoutChecksum(layout), size: layoutSize(layout), domainCount: domains.entries.length, domainsSerialized: domains.serialized, purgeIds: purges.map((purge) => purge.id) };
}

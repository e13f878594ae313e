// The snapshot an edge worker serves from, compiled once per version: a host
// table for the host phase and every rule kind compiled for the shared matcher.
// Built off the request path (on activation); requests only read it.
import type { RuleSet } from '../../shared/rules/rule-set.js';
import { compileSnapshotRules, type ConfigSnapshot, type SnapshotDomain, type SnapshotOrigin, type SnapshotPurge, type SnapshotRule, type SnapshotRuleKind } from '../../shared/snapshot.js';
import { cacheSettings, type CacheSettings } from './cache-settings.js';

/** A domain as the pipeline uses it. */
export type ActiveDomain = {
  readonly id: string;
  readonly apex: string;
  readonly origins: readonly SnapshotOrigin[];
  readonly originShield: SnapshotDomain['origin_shield'];
  readonly cache: CacheSettings;
  readonly rules: { readonly [K in SnapshotRuleKind]: RuleSet<SnapshotRule> };
  readonly snapshot: SnapshotDomain;
};

/** Edge-wide settings of the snapshot (settings groups `edge` and `security`). */
export type EdgeSettings = {
  challengeDifficulty: number;
  securityLevel: string;
  managedWafDefault: boolean;
  blockStatusCode: number;
  staleConfigWarningSeconds: number;
};

export type ActiveConfig = {
  readonly version: number;
  readonly checksum: string;
  /** Wall-clock ms when this worker activated it. */
  readonly loadedAt: number;
  readonly edge: EdgeSettings;
  readonly domainsById: ReadonlyMap<string, ActiveDomain>;
  /** Exact hostnames, and wildcard entries stored under their suffix with the `*.` left on (`*.example.com`). */
  readonly hosts: ReadonlyMap<string, ActiveDomain>;
  readonly purges: readonly SnapshotPurge[];
};

function compileDomain(domain: SnapshotDomain): ActiveDomain {
  const rules = Object.fromEntries(Object.entries(domain.rules).map(([kind, list]) => [kind, compileSnapshotRules(list)])) as ActiveDomain['rules'];
  return { id: domain.id, apex: domain.domain, origins: domain.origins, originShield: domain.origin_shield, cache: cacheSettings(domain.cache), rules, snapshot: domain };
}

function edgeSettings(edge: ConfigSnapshot['edge']): EdgeSettings {
  const security = (edge.security ?? {}) as Record<string, unknown>;
  return {
    challengeDifficulty: edge.challenge_difficulty,
    securityLevel: typeof security.security_level === 'string' ? security.security_level : 'medium',
    managedWafDefault: security.managed_waf_default === true,
    blockStatusCode: typeof security.block_status_code === 'number' ? security.block_status_code : 403,
    staleConfigWarningSeconds: typeof edge.stale_config_warning_seconds === 'number' ? edge.stale_config_warning_seconds : 300,
  };
}

/** Compiles a validated snapshot for serving. A hostname claimed by two domains goes to the first (snapshots are sorted by apex). */
export function compileActiveConfig(snapshot: ConfigSnapshot, version: number, checksum: string, loadedAt = Date.now()): ActiveConfig {
  const domainsById = new Map<string, ActiveDomain>();
  const hosts = new Map<string, ActiveDomain>();
  for (const source of snapshot.domains) {
    const domain = compileDomain(source);
    domainsById.set(domain.id, domain);
    for (const hostname of source.hostnames) if (!hosts.has(hostname)) hosts.set(hostname, domain);
  }
  return { version, checksum, loadedAt, edge: edgeSettings(snapshot.edge), domainsById, hosts, purges: snapshot.purges };
}

/** The domain serving `host` (lower case, no port): an exact hostname first, then the nearest wildcard (`*.example.com` covers `a.b.example.com` only through `*.b.example.com` or itself). */
export function domainForHost(config: ActiveConfig, host: string): ActiveDomain | undefined {
  const exact = config.hosts.get(host);
  if (exact) return exact;
  for (let dot = host.indexOf('.'); dot !== -1; dot = host.indexOf('.', dot + 1)) {
    const wildcard = config.hosts.get(`*${host.slice(dot)}`);
    if (wildcard) return wildcard;
  }
  return undefined;
}

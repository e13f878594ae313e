// The snapshot an edge worker serves from, compiled once per version: a host
// table for the host phase and every rule kind compiled for the shared matcher.
// Built off the request path (on activation); requests only read it.
import type { RuleSet } from '../../shared/rules/rule-set.js';
import { compileSnapshotRules, type ConfigSnapshot, type SnapshotDomain, type SnapshotOrigin, type SnapshotPurge, type SnapshotRule, type SnapshotRuleKind } from '../../shared/snapshot.js';
import { compileHeaderRules, type HeaderRuleSets } from '../rules/header-rules-phase.js';
import { cacheSettings, type CacheSettings } from './cache-settings.js';
import { DomainIndex } from './domain-index.js';

const INDEX = Symbol('domain index');

/** A domain as the pipeline uses it. */
export type ActiveDomain = {
  readonly id: string;
  readonly apex: string;
  readonly origins: readonly SnapshotOrigin[];
  readonly originShield: SnapshotDomain['origin_shield'];
  readonly cache: CacheSettings;
  /** Every kind's rules compiled for the matcher; header rules apart by phase (header-rules-phase.ts). */
  readonly rules: { readonly [K in Exclude<SnapshotRuleKind, 'headers'>]: RuleSet<SnapshotRule> } & { readonly headers: HeaderRuleSets };
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
  /** In the snapshot's order (by apex), which decides who holds a hostname two domains claim. */
  readonly domains: readonly ActiveDomain[];
  readonly domainsById: ReadonlyMap<string, ActiveDomain>;
  /** Exact hostnames, and wildcard entries stored under their suffix with the `*.` left on (`*.example.com`). */
  readonly hosts: ReadonlyMap<string, ActiveDomain>;
  /** The ids of the origins its domains list (the keys). */
  readonly originIds: ReadonlyMap<string, number>;
  readonly purges: readonly SnapshotPurge[];
  /** The tables behind domainsById and hosts, handed from version to version (patchActiveConfig). */
  readonly [INDEX]?: DomainIndex<ActiveDomain>;
};

/** One change of the domain list from one version to the next, as the config delta writes it: copy this many of the previous version's next domains (positive), skip this many (negative), or insert this domain. */
export type DomainStep = number | SnapshotDomain;

/** How a snapshot differs from the version before it: the top-level sections it replaced and its domains' steps (docs/edge-protocol.md, "Config delta"). */
export type SnapshotChange = { since: number; sinceChecksum: string; sections: Partial<Omit<ConfigSnapshot, 'domains'>>; domains: DomainStep[] };

/** Compiles one domain's rules and settings; throws when a rule cannot be compiled. */
export function compileDomain(domain: SnapshotDomain): ActiveDomain {
  const rules = Object.fromEntries(Object.entries(domain.rules).map(([kind, list]) => [kind, kind === 'headers' ? compileHeaderRules(list) : compileSnapshotRules(list)])) as ActiveDomain['rules'];
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

function indexed(domains: readonly ActiveDomain[], index: DomainIndex<ActiveDomain>): Pick<ActiveConfig, 'domains' | 'domainsById' | 'hosts' | 'originIds'> & { [INDEX]: DomainIndex<ActiveDomain> } {
  return { domains, domainsById: index.byId, hosts: index.hosts, originIds: index.originIds, [INDEX]: index };
}

/** Compiles a validated snapshot for serving. A hostname claimed by two domains goes to the first (snapshots are sorted by apex). */
export function compileActiveConfig(snapshot: ConfigSnapshot, version: number, checksum: string, loadedAt = Date.now()): ActiveConfig {
  const domains = snapshot.domains.map(compileDomain);
  return { version, checksum, loadedAt, edge: edgeSettings(snapshot.edge), ...indexed(domains, new DomainIndex(domains)), purges: snapshot.purges };
}

/**
 * The next version compiled from the previous one and its change (validated by the agent): only
 * the inserted domains are compiled, the others are the previous version's as they were, and the
 * previous version's lookup tables are patched and handed over, so `previous` must not be used
 * for lookups after this returns. Throws, changing nothing, when the change does not start from
 * `previous`, does not fit its domains, or an inserted domain does not compile.
 */
export function patchActiveConfig(previous: ActiveConfig, change: SnapshotChange, version: number, checksum: string, loadedAt = Date.now()): ActiveConfig {
  if (previous.version !== change.since || previous.checksum !== change.sinceChecksum) throw new Error(`the change starts from version ${change.since}, not from the active version ${previous.version}`);
  const index = previous[INDEX];
  if (!index) throw new Error('the active version cannot be patched');
  const domains: ActiveDomain[] = [];
  const removed: ActiveDomain[] = [];
  const inserted: ActiveDomain[] = [];
  let cursor = 0;
  const advance = (end: number, into: ActiveDomain[]) => {
    if (end > previous.domains.length) throw new Error('the change goes past the active version\'s domains');
    for (; cursor < end; cursor++) into.push(previous.domains[cursor]);
  };
  for (const step of change.domains) {
    if (typeof step !== 'number') {
      const domain = compileDomain(step);
      domains.push(domain);
      inserted.push(domain);
    } else advance(cursor + Math.abs(step), step < 0 ? removed : domains);
  }
  advance(previous.domains.length, removed);
  index.patch(domains, removed, inserted);
  const edge = change.sections.edge ? edgeSettings(change.sections.edge) : previous.edge;
  return { version, checksum, loadedAt, edge, ...indexed(domains, index), purges: change.sections.purges ?? previous.purges };
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

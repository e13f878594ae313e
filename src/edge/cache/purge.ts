// Which stored objects a snapshot purge removes (docs/edge-cache.md, "Purges").
// Workers apply purges to their memory tier; the primary's DiskCacheIndex to the disk tier.
import type { ActiveConfig } from '../config/active-config.js';
import type { SnapshotPurge } from '../../shared/snapshot.js';
import { normaliseHost } from '../../shared/request-host.js';
import { normalisePath } from '../../shared/request-path.js';
import type { MemoryTier } from './memory-tier.js';
import type { PurgeLog } from './purge-log.js';
import type { CacheEntry, PurgeTarget } from './types.js';

/** A compiled purge: does it remove this object? */
export type PurgeMatcher = (target: PurgeTarget) => boolean;

const NOTHING: PurgeMatcher = () => false;

type Location = { host: string | undefined; path: string; query: string | undefined };

// Objects are stored under the normalised path (docs/edge.md, "One view of the request"): a purge
// names them in any spelling a request could have used.
function storedPath(path: string): string {
  return normalisePath(path) ?? path;
}

// A value starting with / is a path on every hostname; otherwise an http(s) URL (scheme ignored).
function locationOf(value: string): Location | undefined {
  if (value.startsWith('/')) {
    const mark = value.indexOf('?');
    return mark === -1 ? { host: undefined, path: storedPath(value), query: undefined } : { host: undefined, path: storedPath(value.slice(0, mark)), query: value.slice(mark + 1) };
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  return { host: normaliseHost(url.host) ?? url.hostname.toLowerCase(), path: storedPath(url.pathname), query: url.search === '' ? undefined : url.search.slice(1) };
}

function urlMatcher(domainId: string, location: Location): PurgeMatcher {
  return (target) =>
    target.domainId === domainId && target.path === location.path && (location.query === undefined || target.query === location.query) && (location.host === undefined || target.host === location.host);
}

function prefixMatcher(domainId: string, location: Location): PurgeMatcher {
  const prefix = location.query === undefined ? location.path : `${location.path}?${location.query}`;
  return (target) => {
    if (target.domainId !== domainId || (location.host !== undefined && target.host !== location.host)) return false;
    if (!target.path.startsWith(location.path)) return false;
    return location.query === undefined || (target.query === '' ? target.path : `${target.path}?${target.query}`).startsWith(prefix);
  };
}

/** The matcher of one purge; `domainApex` stands in for a `domain` purge without a value. An unknown scope or unparsable value matches nothing. */
export function compilePurge(purge: SnapshotPurge, domainApex: string | undefined): PurgeMatcher {
  const domainId = purge.domain_id;
  switch (purge.scope) {
    case 'everything':
      return (target) => target.domainId === domainId;
    case 'domain': {
      const host = (purge.value ?? domainApex)?.toLowerCase();
      return host === undefined ? NOTHING : (target) => target.domainId === domainId && target.host === host;
    }
    case 'url':
    case 'prefix': {
      const location = purge.value === null ? undefined : locationOf(purge.value);
      if (!location) return NOTHING;
      return purge.scope === 'url' ? urlMatcher(domainId, location) : prefixMatcher(domainId, location);
    }
    default:
      return NOTHING;
  }
}

/** True when `purge` removes the object `target`. */
export function purgeMatches(purge: SnapshotPurge, domainApex: string | undefined, target: PurgeTarget): boolean {
  return compilePurge(purge, domainApex)(target);
}

/**
 * Removes from a worker's memory tier every object the purges match (idempotent); returns how many went.
 * With `log`, the purges are recorded so that fills already under way do not store what they removed.
 */
export function applyPurges(purges: readonly SnapshotPurge[], memory: MemoryTier, config?: ActiveConfig, log?: PurgeLog): number {
  if (purges.length === 0) return 0;
  const matchers = purges.map((purge) => compilePurge(purge, config?.domainsById.get(purge.domain_id)?.apex));
  log?.record(matchers);
  return memory.deleteWhere((entry) => matchers.some((matches) => matches(entry)));
}

/**
 * True when a purge of the active config covers an object fetched before it was
 * created (when the edge asked the origin, not that less the origin's Age: a
 * refill after the purge stays). Checked on disk reads, so an object the primary
 * has not removed yet is never served or copied back into memory. created_at is
 * in whole seconds: an object fetched in the purge's own second counts as older.
 */
export function purgedSinceStored(entry: CacheEntry, config: ActiveConfig): boolean {
  if (config.purges.length === 0) return false;
  const matchers = compiledPurges.get(config) ?? compileAll(config);
  for (let i = 0; i < config.purges.length; i++) {
    const purge = config.purges[i];
    if (purge.domain_id === entry.domainId && entry.fetchedAt < (purge.created_at + 1) * 1000 && matchers[i](entry)) return true;
  }
  return false;
}

const compiledPurges = new WeakMap<ActiveConfig, PurgeMatcher[]>();

function compileAll(config: ActiveConfig): PurgeMatcher[] {
  const matchers = config.purges.map((purge) => compilePurge(purge, config.domainsById.get(purge.domain_id)?.apex));
  compiledPurges.set(config, matchers);
  return matchers;
}

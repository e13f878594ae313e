// Invalidation by unsafe methods (RFC 9111 §4.4): a non-error response to a
// request whose method is not safe removes the stored responses of its target
// URI and of the URIs in its Location and Content-Location (same host only).
// What goes is every object of the resource (domain, host, path), whatever its
// query, Vary variant or rule-added key part: the key's query may be sorted,
// filtered or left out, so matching on the raw query could miss the very object
// a GET of the target URI would be served. Removing more is always safe.
//
// The worker that sees the response invalidates before the response leaves (a
// POST-redirect-GET on the same connection never sees the old object): its
// memory tier, its fills under way, and its reads of the shared disk tier (an
// older disk object of the resource is refused). It tells the primary in batches
// (invalidation-batch.ts), which passes them to every other worker and then
// removes the files from the disk tier (primary/invalidation-sweeper.ts).
import type { RequestContext } from '../pipeline/context.js';
import { normaliseHost } from '../../shared/request-host.js';
import { normalisePath } from '../../shared/request-path.js';
import type { Phase } from '../pipeline/phase.js';
import type { ResponseHeaders } from '../pipeline/response.js';
import { headerText } from './cache-control.js';
import type { Invalidation, InvalidationLog } from './invalidation-log.js';
import type { MemoryTier } from './memory-tier.js';
import { resourceOf, type PurgeTarget } from './types.js';

/** One resource to invalidate (the query is that of the URI that named it; every query of the path goes). */
export type InvalidationTarget = PurgeTarget;

/**
 * Methods RFC 9110 §9.2.1 defines as safe; every other method, unknown ones included, invalidates.
 * Compared, not looked up in a set: Node's method strings are its own constants, so each compare
 * is one pointer's, where the set's lookup was some 130 instructions on every response.
 */
function isSafeMethod(method: string): boolean {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS' || method === 'TRACE';
}
/** A Location or Content-Location longer than this names nothing the edge invalidates. */
const MAX_URI = 8192;

// A Location / Content-Location resolved against the target URI, when it names the same host.
function sameHostTarget(value: string, ctx: RequestContext, domainId: string): InvalidationTarget | undefined {
  if (value === '' || value.length > MAX_URI) return undefined;
  let url: URL;
  try {
    url = new URL(value, `http://${ctx.host}${ctx.path}`);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || normaliseHost(url.host) !== ctx.host) return undefined;
  // Objects are stored under the normalised path (docs/edge.md, "One view of the request").
  return { domainId, host: ctx.host, path: normalisePath(url.pathname) ?? url.pathname, query: url.search.slice(1) };
}

/** The resources a response invalidates (RFC 9111 §4.4): none for a safe method, an error or informational status, or an answer the edge made itself. */
export function invalidatedTargets(ctx: RequestContext, status: number, headers: ResponseHeaders): InvalidationTarget[] {
  const domainId = ctx.domain?.id;
  if (domainId === undefined || isSafeMethod(ctx.method) || status < 200 || status >= 400 || ctx.originId === undefined) return [];
  const targets: InvalidationTarget[] = [{ domainId, host: ctx.host, path: ctx.path, query: ctx.query }];
  for (const name of ['location', 'content-location']) {
    const target = sameHostTarget(headerText(headers, name), ctx, domainId);
    if (target && !targets.some((known) => resourceOf(known) === resourceOf(target))) targets.push(target);
  }
  return targets;
}

export type LocalCache = { memory: MemoryTier; invalidations: InvalidationLog };

/**
 * Invalidates resources in one worker: removes them from its memory tier and records them in its
 * invalidation log (fills under way do not store them back; disk objects fetched before are refused
 * until the primary has swept them); returns how many memory objects went.
 */
export function invalidateLocally(invalidations: readonly Invalidation[], cache: LocalCache, now: number): number {
  if (invalidations.length === 0) return 0;
  cache.invalidations.record(invalidations, now);
  let removed = 0;
  for (const invalidation of invalidations) removed += cache.memory.deleteResource(resourceOf(invalidation));
  return removed;
}

export type InvalidationPhaseOptions = LocalCache & {
  /** Tells the primary (through an InvalidationBatch), which tells the other workers and sweeps the disk tier. */
  notify: (invalidations: Invalidation[]) => void;
  now?: () => number;
};

/**
 * The 'cache-invalidate' response phase: after a non-error origin response to
 * an unsafe method of a domain with caching enabled, invalidates its target
 * URI, Location and Content-Location (see the file comment) before the response
 * is written. Never handles; synchronous.
 */
export function createInvalidationPhase(options: InvalidationPhaseOptions): Phase {
  const now = options.now ?? Date.now;
  return {
    name: 'cache-invalidate',
    run(ctx) {
      const response = ctx.response;
      if (!response || isSafeMethod(ctx.method) || !ctx.domain?.cache.caching_enabled) return false;
      const targets = invalidatedTargets(ctx, response.status, response.headers);
      if (targets.length === 0) return false;
      const at = now();
      const invalidations = targets.map((target) => ({ ...target, at }));
      invalidateLocally(invalidations, options, at);
      options.notify(invalidations);
      return false;
    },
  };
}

// The order in which a request tries a domain's origins (SPEC "Origin selection
// rules"). Tiers first: usable primaries, then usable backups, then usable
// shield origins; inside a tier, weighted rendezvous hashing (highest random
// weight) on the request seed, so one seed always lands on the same origin while
// the seeds spread in proportion to the weights, and removing an origin moves
// only the seeds that were on it.
import type { SnapshotOrigin } from '../../shared/snapshot.js';
import type { ActiveDomain } from '../config/active-config.js';
import type { OriginBreakers } from './breaker.js';
import type { OriginHealthView } from './health-view.js';

// FNV-1a over UTF-16 code units: fast and good enough once finished by fmix32.
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

// MurmurHash3's finaliser: every input bit affects every output bit.
function fmix32(value: number): number {
  let h = value;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The rendezvous score of `origin` for a seed hash: -weight / ln(u), u uniform in (0, 1) from seed and origin id. */
export function rendezvousScore(seedHash: number, origin: SnapshotOrigin): number {
  const mixed = fmix32((seedHash ^ fmix32(fnv1a(origin.id) + 0x9e3779b9)) >>> 0);
  const uniform = (mixed + 0.5) / 4294967296;
  return -Math.max(origin.weight, 0) / Math.log(uniform);
}

/**
 * The default seed: host and path, so every request for one object goes to the
 * same origin (its caches stay warm and a purge-and-refill hits one place);
 * the query string is left out so cache-busting parameters do not scatter an object.
 */
export function defaultSeed(host: string, path: string): string {
  return `${host}${path}`;
}

function tierOf(origin: SnapshotOrigin): number {
  if (origin.shield) return 2;
  return origin.role === 'primary' ? 0 : 1;
}

function byTierThenScore(seedHash: number, origins: SnapshotOrigin[]): SnapshotOrigin[] {
  const scored = origins.map((origin) => ({ origin, tier: tierOf(origin), score: rendezvousScore(seedHash, origin) }));
  scored.sort((a, b) => a.tier - b.tier || b.score - a.score || (a.origin.id < b.origin.id ? -1 : 1));
  return scored.map((entry) => entry.origin);
}

/**
 * The try order for `seed`: the first origin is the chosen one, the next ones
 * are the retry targets (each origin once). Unhealthy origins (by `health`) and
 * origins whose breaker refuses requests are left out. When that leaves none,
 * the fallback ignores health (the least bad is an origin the core or this
 * worker thinks unhealthy, not a 503) but still never includes a breaker-open
 * origin; empty when every origin's breaker is open or the domain has none.
 * So one origin whose breaker lets requests through is the order whatever its
 * health: most domains have one, and their requests neither hash nor count.
 */
export function orderOrigins(domain: ActiveDomain, seed: string, health: OriginHealthView, now: number, breakers?: OriginBreakers): SnapshotOrigin[] {
  const closed = breakers ? domain.origins.filter((origin) => !breakers.isOpen(origin, now)) : [...domain.origins];
  if (closed.length <= 1) return closed;
  const usable = closed.filter((origin) => health.isUsable(origin, now));
  return byTierThenScore(fmix32(fnv1a(seed)), usable.length > 0 ? usable : closed);
}

/** The origin a retry after order[index] goes to: the next one, wrapping round, whose breaker lets requests through (undefined when none does). */
export function nextCandidate(order: SnapshotOrigin[], index: number, breakers: OriginBreakers, now: number): SnapshotOrigin | undefined {
  for (let step = 1; step <= order.length; step++) {
    const origin = order[(index + step) % order.length];
    if (!breakers.isOpen(origin, now)) return origin;
  }
  return undefined;
}

/**
 * True when a timeout of order[index] may be retried: only on another server.
 * The same one (the only origin, or another entry at its address) just took the
 * whole timeout; asking it again doubles the visitor's wait for nothing.
 */
export function retriesTimeoutElsewhere(order: SnapshotOrigin[], index: number, breakers: OriginBreakers, now: number): boolean {
  const failed = order[index % order.length];
  const next = nextCandidate(order, index, breakers, now);
  return next !== undefined && (next.scheme !== failed.scheme || next.host !== failed.host || next.port !== failed.port);
}

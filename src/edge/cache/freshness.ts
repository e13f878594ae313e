// Whether a request may use the cache and whether (and for how long) a response
// is stored. Pure: everything comes in as arguments. Decisions: docs/edge-cache.md.
import type { CacheSettings } from '../config/cache-settings.js';
import type { PageSettings } from '../pipeline/context.js';
import type { ResponseHeaders } from '../pipeline/response.js';
import { deltaSeconds, headerText, originAge, parseCacheControl, varyNames, type Directives } from './cache-control.js';
import { parseHttpDate } from './http-date.js';
import { targetedDirectives, targetList } from './targeted-cache-control.js';
import type { CacheRule } from './types.js';

/** Statuses the edge stores (206 never: a part is not the object; 302/307 only mean something with a Location per request). */
export const CACHEABLE_STATUSES: ReadonlySet<number> = new Set([200, 203, 204, 300, 301, 308, 404, 410]);

/** Why the cache stays out of a request (undefined: it may be served from or stored in the cache). */
export function bypassReason(settings: CacheSettings, rule: CacheRule | undefined, page: PageSettings | undefined, method: string): string | undefined {
  if (!settings.caching_enabled) return 'caching disabled';
  if (settings.development_mode) return 'development mode';
  if (page?.disable_features?.includes('cache')) return 'page rule disables cache';
  if (page?.cache_level === 'bypass') return 'page rule bypass';
  if (rule?.action === 'bypass') return 'cache rule bypass';
  if (method !== 'GET' && method !== 'HEAD') return 'method';
  return undefined;
}

export type FreshnessInput = {
  status: number;
  /** The origin's response headers (lower-case names). */
  headers: ResponseHeaders;
  settings: CacheSettings;
  rule: CacheRule | undefined;
  page: PageSettings | undefined;
  /** The request carried an Authorization header. */
  authorized: boolean;
  /** The request's Cache-Control carried no-store (RFC 9111 §5.2.1.5). */
  requestNoStore?: boolean;
  now: number;
};

export type Freshness = {
  store: boolean;
  /** Why it is not stored ('' when it is). */
  reason: string;
  /** Fresh for this long from now (the origin's Age already taken off an origin-given lifetime). */
  freshMs: number;
  /** After that, served stale while one refresh runs, for this long. */
  swrMs: number;
  /** After freshness, served stale when the origin fails, for this long. */
  sieMs: number;
  /** Seconds old the response already was at the origin (its Age): counted in the Age the edge sends. */
  initialAgeSeconds: number;
  /** The Cache-Control the client gets instead of the origin's (undefined: the origin's, untouched). */
  clientCacheControl: string | undefined;
};

/** Heuristic freshness is this share of the time since Last-Modified (RFC 9111 §4.2.2's "typical setting"). */
const HEURISTIC_FRACTION = 0.1;

// Written as the literal decideFreshness returns, fields in the same order: one object shape for both.
function notStored(reason: string): Freshness {
  return { store: false, reason, freshMs: 0, swrMs: 0, sieMs: 0, initialAgeSeconds: 0, clientCacheControl: undefined };
}

function present(value: number | null | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

// An explicit edge TTL is the operator saying "cache this": a cache rule's, else a page rule's.
function explicitEdgeTtl(rule: CacheRule | undefined, page: PageSettings | undefined): number | undefined {
  if (present(rule?.edge_ttl_seconds)) return rule.edge_ttl_seconds;
  if (present(page?.edge_cache_ttl_seconds)) return page.edge_cache_ttl_seconds;
  return undefined;
}

// The Date the origin sent, or the time the response arrived when it sent none or an invalid one.
function dateOf(headers: ResponseHeaders, now: number): number {
  const date = parseHttpDate(headerText(headers, 'date'), now);
  return Number.isNaN(date) ? now : date;
}

// RFC 9111 §4.2.1: s-maxage, then max-age, then Expires − Date (Expires not when a targeted field
// applies, RFC 9213 §2.1). An invalid max-age or s-maxage, or an Expires that is not an HTTP-date
// (RFC 9111 §5.3), means stale: 0. undefined: the response gives no explicit lifetime.
function originLifetime(directives: Directives, headers: ResponseHeaders, withExpires: boolean, now: number): number | undefined {
  const shared = deltaSeconds(directives, 's-maxage');
  if (shared !== undefined) return shared ?? 0;
  const maxAge = deltaSeconds(directives, 'max-age');
  if (maxAge !== undefined) return maxAge ?? 0;
  if (!withExpires || headers.expires === undefined) return undefined;
  const expires = parseHttpDate(headerText(headers, 'expires'), now);
  if (Number.isNaN(expires)) return 0;
  return Math.max(0, Math.floor((expires - dateOf(headers, now)) / 1000));
}

// RFC 9111 §4.2.2: without an explicit lifetime, a share of the time since Last-Modified, at most the
// domain's default TTL (0: no heuristics). Every status the edge stores is heuristically cacheable.
function heuristicLifetime(headers: ResponseHeaders, settings: CacheSettings, now: number): number {
  if (settings.default_edge_ttl_seconds === 0) return 0;
  const modified = parseHttpDate(headerText(headers, 'last-modified'), now);
  if (Number.isNaN(modified)) return 0;
  const since = Math.max(0, dateOf(headers, now) - modified) / 1000;
  return Math.min(Math.floor(since * HEURISTIC_FRACTION), settings.default_edge_ttl_seconds);
}

// RFC 9111 §3.5: a response to an authorized request is shared only when it says so.
function sharedDespiteAuthorization(directives: Directives): boolean {
  return directives.has('public') || directives.has('s-maxage') || directives.has('must-revalidate');
}

function staleSeconds(ruleValue: number | null | undefined, originValue: number | null | undefined, domainValue: number | undefined, mayServeStale: boolean): number {
  if (present(ruleValue)) return ruleValue;
  if (!mayServeStale) return 0;
  if (originValue !== undefined) return originValue ?? 0;
  return domainValue ?? 0;
}

function clientCacheControl(input: FreshnessInput, originSent: boolean): string | undefined {
  if (input.settings.strict_rfc9111) return undefined;
  const browserTtl = present(input.rule?.browser_ttl_seconds) ? input.rule.browser_ttl_seconds : input.page?.browser_cache_ttl_seconds;
  if (present(browserTtl)) return `max-age=${browserTtl}`;
  if (originSent && input.settings.respect_origin_cache_control) return undefined;
  return `max-age=${input.settings.browser_ttl_seconds}`;
}

// Why a response may not be stored whatever the lifetime (undefined: it may). no-store always holds;
// private and Authorization (RFC 9111 §3.5, §5.2.2.7) yield only to a cache rule's cache_private.
function refusal(input: FreshnessInput, directives: Directives, explicit: number | undefined, rule: CacheRule | undefined): string | undefined {
  if (directives.has('no-store')) return 'no-store';
  if (input.requestNoStore) return 'request no-store';
  if (rule?.cache_private !== true) {
    if (directives.has('private')) return 'private';
    if (input.authorized && !sharedDespiteAuthorization(directives)) return 'authorization';
  }
  if (explicit === undefined && directives.has('no-cache')) return 'no-cache';
  return undefined;
}

/**
 * Whether a response is stored, for how long it is fresh and may be served stale, and the Cache-Control
 * its clients get. Under `strict_rfc9111` only the origin's headers count (no rule, page or domain TTL,
 * stale window or browser TTL; heuristics only from Last-Modified).
 */
export function decideFreshness(input: FreshnessInput): Freshness {
  const { status, headers, settings, now } = input;
  const strict = settings.strict_rfc9111;
  const rule = strict ? undefined : input.rule;
  const page = strict ? undefined : input.page;
  if (!CACHEABLE_STATUSES.has(status)) return notStored(`status ${status}`);
  if (varyNames(headerText(headers, 'vary')).includes('*')) return notStored('vary *');
  const targeted = targetedDirectives(headers, targetList(settings.targeted_cache_control_header));
  const directives = targeted ?? parseCacheControl(headerText(headers, 'cache-control'));
  const explicit = explicitEdgeTtl(rule, page);
  const refused = refusal(input, directives, explicit, rule);
  if (refused !== undefined) return notStored(refused);
  if (headers['set-cookie'] !== undefined && !(present(rule?.edge_ttl_seconds) || page?.cache_level === 'cache_everything')) return notStored('set-cookie');

  const respect = (strict || settings.respect_origin_cache_control) && explicit === undefined;
  const initialAgeSeconds = originAge(headers);
  const originGiven = respect ? originLifetime(directives, headers, targeted === undefined, now) : undefined;
  const fallback = strict ? heuristicLifetime(headers, settings, now) : settings.default_edge_ttl_seconds;
  const freshSeconds = explicit ?? Math.max(0, (originGiven ?? fallback) - initialAgeSeconds);
  // RFC 9111 §4.2.4, §5.2.2.10: s-maxage carries proxy-revalidate's semantics for a shared cache.
  const mayServeStale = !(respect && (directives.has('must-revalidate') || directives.has('proxy-revalidate') || directives.has('s-maxage')));
  const domainSwr = strict ? undefined : settings.stale_while_revalidate_seconds;
  const domainSie = strict ? undefined : settings.stale_if_error_seconds;
  const swrMs = staleSeconds(rule?.stale_while_revalidate_seconds, respect ? deltaSeconds(directives, 'stale-while-revalidate') : undefined, domainSwr, mayServeStale) * 1000;
  const sieMs = staleSeconds(rule?.stale_if_error_seconds, respect ? deltaSeconds(directives, 'stale-if-error') : undefined, domainSie, mayServeStale) * 1000;
  if (freshSeconds === 0 && swrMs === 0 && sieMs === 0) return notStored('ttl 0');
  return { store: true, reason: '', freshMs: freshSeconds * 1000, swrMs, sieMs, initialAgeSeconds, clientCacheControl: clientCacheControl(input, headers['cache-control'] !== undefined) };
}

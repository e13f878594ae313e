// Whether a request may use the cache and whether (and for how long) a response
// is stored. Pure: everything comes in as arguments. Decisions: docs/edge-cache.md.
import type { CacheSettings } from '../config/cache-settings.js';
import type { PageSettings } from '../pipeline/context.js';
import type { ResponseHeaders } from '../pipeline/response.js';
import { deltaSeconds, headerText, originAge, parseCacheControl, varyNames, type Directives } from './cache-control.js';
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
  now: number;
};

export type Freshness = {
  store: boolean;
  /** Why it is not stored ('' when it is). */
  reason: string;
  /** Fresh for this long from now (the origin's Age already taken off). */
  freshMs: number;
  /** After that, served stale while one refresh runs, for this long. */
  swrMs: number;
  /** After freshness, served stale when the origin fails, for this long. */
  sieMs: number;
  /** Seconds old the response already was at the origin (its Age). */
  initialAgeSeconds: number;
  /** The Cache-Control the client gets instead of the origin's (undefined: the origin's, untouched). */
  clientCacheControl: string | undefined;
};

const NOT_STORED = { store: false, freshMs: 0, swrMs: 0, sieMs: 0, initialAgeSeconds: 0, clientCacheControl: undefined };

function notStored(reason: string): Freshness {
  return { ...NOT_STORED, reason };
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

// RFC 9111 §4.2.1: s-maxage, then max-age, then Expires − Date.
function originLifetime(directives: Directives, headers: ResponseHeaders, now: number): number | undefined {
  const shared = deltaSeconds(directives, 's-maxage');
  if (shared !== undefined) return shared;
  const maxAge = deltaSeconds(directives, 'max-age');
  if (maxAge !== undefined) return maxAge;
  const expiresText = headerText(headers, 'expires');
  if (expiresText === '') return undefined;
  const expires = Date.parse(expiresText);
  if (Number.isNaN(expires)) return 0;
  const date = Date.parse(headerText(headers, 'date'));
  return Math.max(0, Math.floor((expires - (Number.isNaN(date) ? now : date)) / 1000));
}

// RFC 9111 §3.5: a response to an authorized request is shared only when it says so.
function sharedDespiteAuthorization(directives: Directives): boolean {
  return directives.has('public') || directives.has('s-maxage') || directives.has('must-revalidate');
}

function staleSeconds(ruleValue: number | null | undefined, originValue: number | undefined, domainValue: number, mayServeStale: boolean): number {
  if (present(ruleValue)) return ruleValue;
  if (!mayServeStale) return 0;
  return originValue ?? domainValue;
}

function clientCacheControl(input: FreshnessInput, originSent: boolean): string | undefined {
  const browserTtl = present(input.rule?.browser_ttl_seconds) ? input.rule.browser_ttl_seconds : input.page?.browser_cache_ttl_seconds;
  if (present(browserTtl)) return `max-age=${browserTtl}`;
  if (originSent && input.settings.respect_origin_cache_control) return undefined;
  return `max-age=${input.settings.browser_ttl_seconds}`;
}

/** Whether a response is stored, for how long it is fresh and may be served stale, and the Cache-Control its clients get. */
export function decideFreshness(input: FreshnessInput): Freshness {
  const { status, headers, settings, rule, page } = input;
  if (!CACHEABLE_STATUSES.has(status)) return notStored(`status ${status}`);
  if (varyNames(headerText(headers, 'vary')).includes('*')) return notStored('vary *');
  const cacheControlText = headerText(headers, 'cache-control');
  const directives = parseCacheControl(cacheControlText);
  const explicit = explicitEdgeTtl(rule, page);
  if (explicit === undefined) {
    for (const name of ['no-store', 'private', 'no-cache']) if (directives.has(name)) return notStored(name);
    if (input.authorized && !sharedDespiteAuthorization(directives)) return notStored('authorization');
  }
  if (headers['set-cookie'] !== undefined && !(present(rule?.edge_ttl_seconds) || page?.cache_level === 'cache_everything')) return notStored('set-cookie');

  const respect = settings.respect_origin_cache_control && explicit === undefined;
  const initialAgeSeconds = respect ? originAge(headers) : 0;
  const lifetime = explicit ?? (respect ? originLifetime(directives, headers, input.now) : undefined) ?? settings.default_edge_ttl_seconds;
  const freshMs = Math.max(0, lifetime - initialAgeSeconds) * 1000;
  const mayServeStale = !(respect && (directives.has('must-revalidate') || directives.has('proxy-revalidate')));
  const swrMs = staleSeconds(rule?.stale_while_revalidate_seconds, respect ? deltaSeconds(directives, 'stale-while-revalidate') : undefined, settings.stale_while_revalidate_seconds, mayServeStale) * 1000;
  const sieMs = staleSeconds(rule?.stale_if_error_seconds, respect ? deltaSeconds(directives, 'stale-if-error') : undefined, settings.stale_if_error_seconds, mayServeStale) * 1000;
  if (freshMs === 0 && swrMs === 0 && sieMs === 0) return notStored('ttl 0');
  return { store: true, reason: '', freshMs, swrMs, sieMs, initialAgeSeconds, clientCacheControl: clientCacheControl(input, cacheControlText !== '') };
}

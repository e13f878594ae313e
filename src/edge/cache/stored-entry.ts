// Turns a response the edge decided to store into the entries the tiers keep:
// the object (under its variant key when it varies) and, when it varies, the
// marker under the request's key that says on which headers. The client's
// headers are made once here, so a HIT only copies them (deliver.ts); the
// origin's own freshness fields are kept beside them for revalidation.
import { Buffer } from 'node:buffer';
import type { RequestContext } from '../pipeline/context.js';
import { REMOVED_RESPONSE_HEADERS } from '../pipeline/hygiene-phase.js';
import type { ResponseHeaders } from '../pipeline/response.js';
import { headerText, varyNames } from './cache-control.js';
import { variantKey } from './cache-key.js';
import type { StoredBody } from './disk-body.js';
import type { Freshness } from './freshness.js';
import { targetList } from './targeted-cache-control.js';
import type { CacheEntry } from './types.js';

/** Headers that describe one connection, never a stored object (RFC 9110 §7.6.1), plus those the edge sets on delivery. */
const NOT_STORED = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'set-cookie', 'age', 'x-cache']);

/** When a response was fetched: the request sent (`fetchedAt`) and its head received (`receivedAt`), wall-clock ms. */
export type FetchTimes = { fetchedAt: number; receivedAt: number };

/** A stored object's headers: those its clients get, and the origin's freshness fields kept beside them (CacheEntry). */
type StoredHeaders = Pick<CacheEntry, 'headers' | 'originFreshness'>;

/**
 * Splits the origin's headers (less hop-by-hop ones, also those its Connection header names,
 * Set-Cookie and Age) into the client's (the client's Cache-Control, no targeted field of `targets`,
 * no software-naming field, the real Content-Length) and the origin's own freshness fields.
 */
function storedHeaders(origin: ResponseHeaders, fresh: Freshness, bodyLength: number, targets: readonly string[]): StoredHeaders {
  const named = new Set(
    headerText(origin, 'connection')
      .split(',')
      .map((name) => name.trim().toLowerCase()),
  );
  const headers: ResponseHeaders = {};
  const originFreshness: ResponseHeaders = {};
  for (const name in origin) {
    if (NOT_STORED.has(name) || named.has(name)) continue;
    const targeted = targets.includes(name);
    if (targeted || name === 'cache-control') originFreshness[name] = origin[name];
    // What hygiene would delete from every HIT is not stored for the client, so a HIT's header object never loses a property.
    if (!targeted && !REMOVED_RESPONSE_HEADERS.has(name)) headers[name] = origin[name];
  }
  if (fresh.clientCacheControl !== undefined) headers['cache-control'] = fresh.clientCacheControl;
  headers['content-length'] = String(bodyLength);
  return { headers, originFreshness };
}

/** The headers of a stored object as the origin sent them, as far as freshness goes: the client's with the origin's own Cache-Control and targeted fields in place of the client's Cache-Control. */
export function originHeadersOf(entry: CacheEntry): ResponseHeaders {
  const headers: ResponseHeaders = {};
  for (const name in entry.headers) if (name !== 'cache-control') headers[name] = entry.headers[name];
  return Object.assign(headers, entry.originFreshness);
}

/**
 * The entries storing the origin's response (`origin` its headers, `body` of `bodyLength` bytes) fetched
 * for the request under `key`: the object, and a Vary marker when the response varies.
 */
export function entriesFor(ctx: RequestContext, key: string, status: number, origin: ResponseHeaders, body: StoredBody, bodyLength: number, fresh: Freshness, times: FetchTimes): CacheEntry[] {
  const vary = varyNames(headerText(origin, 'vary'));
  const freshUntil = times.receivedAt + fresh.freshMs;
  const { headers, originFreshness } = storedHeaders(origin, fresh, bodyLength, targetList(ctx.domain?.cache.targeted_cache_control_header));
  const object: CacheEntry = {
    key: vary.length ? variantKey(key, vary, ctx) : key,
    domainId: ctx.domain?.id ?? '',
    host: ctx.host,
    path: ctx.path,
    query: ctx.query,
    status,
    headers,
    originFreshness,
    body,
    storedAt: times.receivedAt - fresh.initialAgeSeconds * 1000,
    fetchedAt: times.fetchedAt,
    freshUntil,
    swrUntil: freshUntil + fresh.swrMs,
    sieUntil: freshUntil + fresh.sieMs,
    vary,
    marker: false,
  };
  if (!vary.length) return [object];
  return [object, { ...object, key, status: 0, headers: {}, originFreshness: {}, body: Buffer.alloc(0), marker: true }];
}

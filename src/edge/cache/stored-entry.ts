// Turns a response the edge decided to store into the entries the tiers keep:
// the object (under its variant key when it varies) and, when it varies, the
// marker under the request's key that says on which headers.
import type { RequestContext } from '../pipeline/context.js';
import type { ResponseHeaders } from '../pipeline/response.js';
import { headerText, varyNames } from './cache-control.js';
import { variantKey } from './cache-key.js';
import type { StoredBody } from './disk-body.js';
import type { Freshness } from './freshness.js';
import type { CacheEntry } from './types.js';

/** Headers that describe one connection, never a stored object (RFC 9110 §7.6.1), plus those the edge sets on delivery. */
const NOT_STORED = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'set-cookie', 'age', 'x-cache']);

/** The headers stored with an object: the origin's less hop-by-hop ones (also those its Connection header names), Set-Cookie and Age; the client's Cache-Control; the real Content-Length. */
export function storedHeaders(origin: ResponseHeaders, fresh: Freshness, bodyLength: number): ResponseHeaders {
  const named = new Set(
    headerText(origin, 'connection')
      .split(',')
      .map((name) => name.trim().toLowerCase()),
  );
  const headers: ResponseHeaders = {};
  for (const name in origin) if (!NOT_STORED.has(name) && !named.has(name)) headers[name] = origin[name];
  if (fresh.clientCacheControl !== undefined) headers['cache-control'] = fresh.clientCacheControl;
  headers['content-length'] = String(bodyLength);
  return headers;
}

/** The entries storing a response fetched at `fetchedAt` for the request under `key`: the object, and a Vary marker when the response varies. */
export function entriesFor(ctx: RequestContext, key: string, status: number, headers: ResponseHeaders, body: StoredBody, fresh: Freshness, fetchedAt: number): CacheEntry[] {
  const vary = varyNames(headerText(headers, 'vary'));
  const storedAt = fetchedAt - fresh.initialAgeSeconds * 1000;
  const freshUntil = fetchedAt + fresh.freshMs;
  const object: CacheEntry = {
    key: vary.length ? variantKey(key, vary, ctx) : key,
    domainId: ctx.domain?.id ?? '',
    host: ctx.host,
    path: ctx.path,
    query: ctx.query,
    status,
    headers,
    body,
    storedAt,
    freshUntil,
    swrUntil: freshUntil + fresh.swrMs,
    sieUntil: freshUntil + fresh.sieMs,
    vary,
    marker: false,
  };
  if (!vary.length) return [object];
  return [object, { ...object, key, status: 0, headers: {}, body: Buffer.alloc(0), marker: true }];
}

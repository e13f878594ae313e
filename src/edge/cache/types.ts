// Shapes shared by the cache module: a cache rule as shipped in the snapshot,
// and a stored object as both tiers keep it.
import type { ResponseHeaders } from '../pipeline/response.js';
import type { SnapshotRule } from '../../shared/snapshot.js';
import type { StoredBody } from './disk-body.js';

/** What a cache rule adds to the cache key (docs/rules.md, cache-rules). */
export type CacheKeySpec = {
  query_strings?: { mode: 'all' | 'none' | 'include' | 'exclude'; names?: string[] };
  headers?: string[];
  cookies?: string[];
  country?: boolean;
};

/** A cache rule's fields (null or absent: keep the domain's settings or the origin's headers). */
export type CacheRule = SnapshotRule & {
  action?: 'cache' | 'bypass';
  edge_ttl_seconds?: number | null;
  browser_ttl_seconds?: number | null;
  stale_while_revalidate_seconds?: number | null;
  stale_if_error_seconds?: number | null;
  /** Stores responses marked `private` or answering a request with Authorization (dangerous: docs/rules.md). */
  cache_private?: boolean;
  cache_key?: CacheKeySpec;
};

/**
 * One stored object. Times are wall-clock ms. A `marker` carries no body: it
 * says the object under this key varies on the request headers in `vary`, and
 * the variants live under `variantKey(key, vary, ctx)` (the values the origin received).
 */
export type CacheEntry = {
  key: string;
  domainId: string;
  host: string;
  path: string;
  /** The query the object was fetched with (raw), for purges. */
  query: string;
  status: number;
  /**
   * Headers the client gets, ready to send: the origin's less hop-by-hop ones, Set-Cookie, Age, the
   * software-naming ones hygiene removes and the targeted fields the edge is a target of; the
   * client's Cache-Control; the real Content-Length. Delivery copies them and only adds fields.
   */
  headers: ResponseHeaders;
  /**
   * The origin's own freshness fields, which `headers` does not carry as sent: its Cache-Control
   * (absent when it sent none) and the targeted fields (RFC 9213) the edge is a target of. A
   * revalidation decides the new freshness from them (originHeadersOf), never from the browser's.
   */
  originFreshness: ResponseHeaders;
  /** Whole in memory; in its disk file (a DiskBody) only for an object read from disk that is too large for the memory tier. */
  body: StoredBody;
  /** When the object was fetched, less the age the origin reported: what its Age counts from. */
  storedAt: number;
  /** When the edge sent the request that fetched (or last revalidated) it: invalidations and purges compare against this. */
  fetchedAt: number;
  freshUntil: number;
  swrUntil: number;
  sieUntil: number;
  /** Lower-case request header names the object varies on. */
  vary: readonly string[];
  marker: boolean;
};

/** The object identity a purge matches against. */
export type PurgeTarget = { domainId: string; host: string; path: string; query: string };

/** The resource an object belongs to: domain id, host and path (every query, variant and rule-added key part of that path shares it). */
export function resourceOf(target: PurgeTarget): string {
  return `${target.domainId}\n${target.host}\n${target.path}`;
}

/** Bytes an entry is charged in a tier: body, key and headers, plus a fixed overhead. */
export function entrySize(entry: CacheEntry): number {
  return 256 + entry.key.length + entry.body.length + headersSize(entry.headers) + headersSize(entry.originFreshness);
}

function headersSize(headers: ResponseHeaders): number {
  let size = 0;
  for (const name in headers) {
    const value = headers[name];
    size += name.length + (typeof value === 'string' ? value.length : value.join('').length);
  }
  return size;
}

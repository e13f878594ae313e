// The request headers an origin receives: the client's end-to-end headers,
// then what the edge vouches for (X-Forwarded-*, the shield secret) and Host.
import type { IncomingHttpHeaders } from 'node:http';
import type { SnapshotOrigin } from '../../shared/snapshot.js';
import type { ActiveDomain } from '../config/active-config.js';
import { withCdnLoop } from '../pipeline/cdn-loop.js';

// Hop-by-hop headers (RFC 9110 §7.6.1) plus those the edge sets itself. Expect
// is answered by the edge's own server (100 Continue), so it is not passed on.
// Those the client's Connection header named were removed at the door
// (pipeline/request-head.ts), before any request-header rule could set one.
// Content-Length is put back from the client's own framing (forwardHeaders).
const DROPPED_REQUEST_HEADERS = new Set([
  'connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'expect',
  'host', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'x-real-ip', 'content-length',
]);

const DROPPED_RESPONSE_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

// The extra hop-by-hop names an origin's Connection header lists (bounded: a header line is at most 16 KB anyway).
// The usual values name none beyond the hop-by-hop headers dropped anyway.
function connectionTokens(value: string | string[] | undefined): Set<string> | undefined {
  if (!value || value === 'keep-alive' || value === 'close') return undefined;
  const text = Array.isArray(value) ? value.join(',') : value;
  return new Set(text.toLowerCase().split(',').map((token) => token.trim()).filter(Boolean));
}

/** What the edge knows about the client request that origins are told. */
export type ForwardFacts = {
  domain: ActiveDomain;
  /** The request's normalised host (request-head.ts): never the raw Host header. */
  clientHost: string;
  clientIp: string;
  scheme: 'http' | 'https';
  /** Keep Connection and Upgrade (a WebSocket handshake). */
  upgrade?: boolean;
  /** This edge's CDN-Loop pseudonym, appended to the request's CDN-Loop list (RFC 8586). */
  cdnLoop?: string;
  /** The stored object's validators the cache asks with (If-None-Match, If-Modified-Since): they replace the client's. */
  validators?: Record<string, string>;
};

/**
 * The headers for `origin`, as name, value, name, value...: the client's minus hop-by-hop ones;
 * X-Forwarded-For replaced by the single address the edge believes (a client-sent chain is not
 * trusted past the edge's own trusted-proxy rules), and X-Real-IP the same; X-Forwarded-Proto and -Host
 * (the normalised host); Host = origin.host_header or the normalised host; CDN-Loop with this
 * edge's pseudonym appended; the shield header carrying the domain's secret (a client-sent copy is
 * always dropped; one named like a field the edge sets takes that field's place); last the cache's
 * validators, in place of any the client sent. No Via: it would announce the edge's software for
 * no use to origins. A list rather than an object: both undici and node:http take it as it is,
 * where an object keyed by the client's header names costs a keyed store per name to build and a
 * keyed load per name to read (docs/benchmarks.md, "2026-11-27 (third session)").
 */
export function forwardHeaders(incoming: IncomingHttpHeaders, origin: SnapshotOrigin, facts: ForwardFacts): string[] {
  const shield = facts.domain.originShield;
  const shieldName = shield?.header_name.toLowerCase();
  const replaced = shield?.secret ? shieldName : undefined;
  const validators = facts.validators;
  const headers: string[] = [];
  for (const name in incoming) {
    const value = incoming[name];
    if (value === undefined || DROPPED_REQUEST_HEADERS.has(name) || name === shieldName) continue;
    if ((name === 'cdn-loop' && facts.cdnLoop) || (validators !== undefined && Object.hasOwn(validators, name))) continue;
    if (typeof value === 'string') headers.push(name, value);
    else for (const item of value) headers.push(name, item);
  }
  if (facts.upgrade) {
    pushOwn(headers, replaced, 'connection', 'Upgrade');
    if (incoming.upgrade) pushOwn(headers, replaced, 'upgrade', incoming.upgrade);
  }
  // The body framing comes from the client's own framing only, whatever its Connection header listed:
  // a body sent without framing would desynchronise the kept-alive origin connection. A chunked body
  // carries no length: the dispatcher sends a body of unknown length chunked itself (it takes no
  // Transfer-Encoding header).
  if (incoming['transfer-encoding'] === undefined && incoming['content-length'] !== undefined) pushOwn(headers, replaced, 'content-length', incoming['content-length']);
  pushOwn(headers, replaced, 'x-forwarded-for', facts.clientIp);
  pushOwn(headers, replaced, 'x-real-ip', facts.clientIp);
  pushOwn(headers, replaced, 'x-forwarded-proto', facts.scheme);
  pushOwn(headers, replaced, 'x-forwarded-host', facts.clientHost);
  pushOwn(headers, replaced, 'host', origin.host_header ?? facts.clientHost);
  if (facts.cdnLoop) pushOwn(headers, replaced, 'cdn-loop', withCdnLoop(incoming['cdn-loop'], facts.cdnLoop));
  if (shield?.secret) headers.push(shield.header_name, shield.secret);
  if (validators !== undefined) for (const name in validators) headers.push(name, validators[name]);
  return headers;
}

// A field the edge sets, unless the shield header (`replaced`, lower case) goes in its place.
function pushOwn(headers: string[], replaced: string | undefined, name: string, value: string): void {
  if (name !== replaced) headers.push(name, value);
}

// Response headers a repeat of which is dropped (the first one counts), as Node's own HTTP client does.
const SINGLE_RESPONSE_HEADERS = new Set([
  'age', 'authorization', 'content-length', 'content-type', 'etag', 'expires', 'from', 'host', 'if-modified-since', 'if-unmodified-since',
  'last-modified', 'location', 'max-forwards', 'proxy-authorization', 'referer', 'retry-after', 'server', 'user-agent',
]);

// A repeated response header as one value: Set-Cookie stays a list, a single-valued header keeps its first value, any other is joined (RFC 9110 §5.3).
function oneValue(name: string, values: string[]): string | string[] {
  if (name === 'set-cookie') return values;
  return SINGLE_RESPONSE_HEADERS.has(name) ? values[0] : values.join(', ');
}

/** An origin's response headers as the edge passes them on: hop-by-hop ones dropped, a repeated header merged as above. */
export function responseHeaders(incoming: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const extraHopByHop = connectionTokens(incoming.connection);
  const headers: Record<string, string | string[]> = {};
  for (const name in incoming) {
    const value = incoming[name];
    if (value === undefined || DROPPED_RESPONSE_HEADERS.has(name) || extraHopByHop?.has(name)) continue;
    headers[name] = typeof value === 'string' ? value : oneValue(name, value);
  }
  return headers;
}

/** True when the client request carries a body (a length above zero, or chunked). */
export function hasRequestBody(incoming: IncomingHttpHeaders): boolean {
  if (incoming['transfer-encoding'] !== undefined) return true;
  const length = incoming['content-length'];
  return length !== undefined && length !== '0';
}

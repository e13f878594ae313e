// The request headers an origin receives: the client's end-to-end headers,
// then what the edge vouches for (X-Forwarded-*, the shield secret) and Host.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { SnapshotOrigin } from '../../shared/snapshot.js';
import type { ActiveDomain } from '../config/active-config.js';
import { withCdnLoop } from '../pipeline/cdn-loop.js';

// Hop-by-hop headers (RFC 9110 §7.6.1) plus those the edge sets itself. Expect
// is answered by the edge's own server (100 Continue), so it is not passed on.
// Those the client's Connection header named were removed at the door
// (pipeline/request-head.ts), before any request-header rule could set one.
const DROPPED_REQUEST_HEADERS = new Set([
  'connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'expect',
  'host', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'x-real-ip',
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
};

/**
 * The headers for `origin`: the client's minus hop-by-hop ones; X-Forwarded-For
 * replaced by the single address the edge believes (a client-sent chain is not
 * trusted past the edge's own trusted-proxy rules), and X-Real-IP the same; X-Forwarded-Proto and -Host
 * (the normalised host); Host = origin.host_header or the normalised host; the shield header carrying the
 * domain's secret (a client-sent copy is always dropped); CDN-Loop with this
 * edge's pseudonym appended. No Via: it would announce the edge's software for
 * no use to origins.
 */
export function forwardHeaders(incoming: IncomingHttpHeaders, origin: SnapshotOrigin, facts: ForwardFacts): OutgoingHttpHeaders {
  const shieldName = facts.domain.originShield?.header_name.toLowerCase();
  const headers: OutgoingHttpHeaders = {};
  for (const name in incoming) {
    const value = incoming[name];
    if (value === undefined || DROPPED_REQUEST_HEADERS.has(name) || name === shieldName) continue;
    headers[name] = value;
  }
  if (facts.upgrade) {
    headers.connection = 'Upgrade';
    if (incoming.upgrade) headers.upgrade = incoming.upgrade;
  }
  setBodyFraming(headers, incoming);
  headers['x-forwarded-for'] = facts.clientIp;
  headers['x-real-ip'] = facts.clientIp;
  headers['x-forwarded-proto'] = facts.scheme;
  headers['x-forwarded-host'] = facts.clientHost;
  headers.host = origin.host_header ?? facts.clientHost;
  if (facts.cdnLoop) headers['cdn-loop'] = withCdnLoop(incoming['cdn-loop'], facts.cdnLoop);
  const shield = facts.domain.originShield;
  if (shield?.secret) headers[shield.header_name] = shield.secret;
  return headers;
}

// The body framing comes from the client's own framing only, whatever its
// Connection header listed: a body sent without framing would desynchronise the
// kept-alive origin connection. A chunked body carries no length: the dispatcher
// sends a body of unknown length chunked itself (it takes no Transfer-Encoding header).
function setBodyFraming(headers: OutgoingHttpHeaders, incoming: IncomingHttpHeaders): void {
  delete headers['content-length'];
  if (incoming['transfer-encoding'] === undefined && incoming['content-length'] !== undefined) headers['content-length'] = incoming['content-length'];
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

// The door: a request's head parsed and normalised once, before any phase (RFC 9110,
// RFC 9112). Every later decision (domain, rules, cache key, what the origin receives)
// reads this one view; none reads the raw Host header or target again.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { normaliseHost } from '../../shared/request-host.js';
import { absoluteForm } from '../../shared/request-target.js';
import { normalisePath } from '../../shared/request-path.js';

/** What the door established about a request. */
export type RequestHead = {
  /** Lower case, without port or trailing dot; '' when the request named none (HTTP/1.0 without Host). */
  host: string;
  /** The canonical path (shared/request-path.ts): what rules, the cache key and the origin see. */
  path: string;
  /** The path as sent, for the managed WAF signatures only (normalising removes the `../` they look for). */
  rawPath: string;
  /** The query as sent, without `?`. */
  query: string;
};

/** A request the door refuses, whatever the site. */
export type HeadRefusal = { status: number; detail: string; headers?: Record<string, string> };

/** The methods the edge passes on (the Allow of its 405s). */
export const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';
// TRACE and TRACK echo the request, cookies included, back to a page that can read it (cross-site tracing).
const REFUSED_METHODS = new Set(['TRACE', 'TRACK']);
// Names a client's Connection header may not take away: the framing of its own body (read by the
// edge whatever the header says) and the headers the edge itself decides on.
const NOT_DROPPABLE = new Set(['connection', 'upgrade', 'host', 'content-length', 'transfer-encoding']);
const KEEP_ALIVE_OR_CLOSE = /^(?:keep-alive|close)$/i;
// What origins and frameworks believe about the request when a proxy says it: the host and
// scheme (Forwarded, X-Forwarded-Port/-Prefix/-Server/-Ssl/-Scheme), the path (X-Original-URL,
// X-Rewrite-URL: IIS, Symfony), the method (X-HTTP-Method-Override: Rails, Express, Spring)
// and the client (X-Real-IP, True-Client-IP, X-Client-IP). The edge sets X-Forwarded-For,
// -Proto, -Host and X-Real-IP itself (origin/forward-headers.ts).
const PROXY_CLAIMS = new Set([
  'forwarded', 'x-forwarded-port', 'x-forwarded-prefix', 'x-forwarded-server', 'x-forwarded-ssl', 'x-forwarded-scheme', 'x-original-host',
  'x-original-url', 'x-rewrite-url', 'x-http-method-override', 'x-http-method', 'x-method-override', 'x-real-ip', 'true-client-ip', 'x-client-ip',
]);
// The first letters of those names, lower case, by character code (a table: a set's lookup cost some 55
// instructions a header): a header beginning with any other is no claim and is not lower-cased to be looked up.
const CLAIM_INITIALS = new Uint8Array(256);
for (const name of PROXY_CLAIMS) CLAIM_INITIALS[name.charCodeAt(0)] = 1;
const TO_LOWER_CASE_BIT = 0x20;

/** How the client reached the edge: `https` on the TLS listener's connections (one property read), else `http`. */
export function schemeOf(req: IncomingMessage): 'http' | 'https' {
  return (req.socket as { encrypted?: boolean }).encrypted === true ? 'https' : 'http';
}

/** True when `value` is a refusal rather than a parsed head. */
export function isRefusal(value: RequestHead | HeadRefusal): value is HeadRefusal {
  return 'status' in value;
}

/**
 * Parses the request line and Host of `req`: the host from an absolute-form target's
 * authority, else the Host header (RFC 9112 §3.2.2), validated and normalised; the path
 * normalised. Refuses TRACE and TRACK (405), more than one Host line, a Host or authority
 * that is not a valid host, a target that is neither origin-form nor absolute http(s),
 * and a malformed percent-escape in the path (400).
 */
export function parseRequestHead(req: IncomingMessage): RequestHead | HeadRefusal {
  if (REFUSED_METHODS.has(req.method ?? '')) return { status: 405, detail: 'This method is not allowed through the CDN.', headers: { allow: ALLOWED_METHODS } };
  if (hostLines(req.rawHeaders) > 1) return { status: 400, detail: 'The request has more than one Host header.' };
  const url = req.url ?? '/';
  let authority = req.headers.host;
  let target = url;
  if (url.charCodeAt(0) !== 47 /* / */) {
    const absolute = absoluteForm(url);
    if (!absolute) return { status: 400, detail: 'The request target is not a path.' };
    ({ authority, target } = absolute);
  }
  const host = authority === undefined ? '' : normaliseHost(authority);
  if (host === undefined) return { status: 400, detail: 'The request names a host that is not a valid host name.' };
  const mark = target.indexOf('?');
  const rawPath = mark === -1 ? target : target.slice(0, mark);
  const path = normalisePath(rawPath);
  if (path === undefined) return { status: 400, detail: 'The request path holds a "%" that is not a percent-escape.' };
  return { host, path, rawPath, query: mark === -1 ? '' : target.slice(mark + 1) };
}

/** How many Host header lines a request carried (Node keeps only the first; RFC 9112 §3.2 wants a 400 for more). */
export function hostLines(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index];
    if (name.length === 4 && name.toLowerCase() === 'host') count++;
  }
  return count;
}

/**
 * Removes from the client's headers what is not the client's to tell the origin (done at the
 * door, before any rule, so a header an operator's request-header rule sets later is the edge's
 * own and reaches the origin): the headers its Connection header names (RFC 9110 §7.6.1: they
 * were for the hop to the edge), and the claims only a proxy in front of the origin makes, with
 * which the origin would read another host, path, method or client than every rule decided on.
 */
export function dropClientClaims(headers: IncomingHttpHeaders, rawHeaders: readonly string[]): void {
  // The names the client sent, not a lookup per claim: most requests carry none.
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index];
    if (CLAIM_INITIALS[(name.charCodeAt(0) | TO_LOWER_CASE_BIT) & 0xff] !== 1) continue;
    const lower = name.toLowerCase();
    if (PROXY_CLAIMS.has(lower)) delete headers[lower];
  }
  dropConnectionNamed(headers);
}

function dropConnectionNamed(headers: IncomingHttpHeaders): void {
  const connection = headers.connection;
  if (connection === undefined || KEEP_ALIVE_OR_CLOSE.test(connection)) return;
  for (const token of connection.toLowerCase().split(',')) {
    const name = token.trim();
    if (name !== '' && !NOT_DROPPABLE.has(name) && headers[name] !== undefined) delete headers[name];
  }
}

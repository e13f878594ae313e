// A client's conditional GET or HEAD answered from a stored response (RFC 9111
// §4.3.2, RFC 9110 §13.1.2-13.1.3 and §13.2.2): If-None-Match with the weak
// comparison, else If-Modified-Since against Last-Modified; a 304 keeps the
// headers RFC 9110 §15.4.5 lists.
import type { IncomingHttpHeaders } from 'node:http';
import type { EdgeResponse, ResponseHeaders } from '../pipeline/response.js';
import { headerText } from './cache-control.js';
import { parseHttpDate } from './http-date.js';

/** Headers a 304 carries (RFC 9110 §15.4.5), besides Age and X-Cache; Last-Modified only without an ETag. */
const NOT_MODIFIED_HEADERS = ['cache-control', 'content-location', 'date', 'etag', 'expires', 'vary'];

/**
 * An If-None-Match longer than this is not evaluated (the object is sent whole).
 * The door already bounds a header section to 16 KiB; the scan below is one
 * pass without allocation, so even that many entity-tags cost microseconds.
 */
const MAX_IF_NONE_MATCH = 16 * 1024;

// The opaque-tag of an entity-tag (quotes included, W/ dropped): what the weak comparison compares.
function opaqueStart(tag: string): number {
  return tag.startsWith('W/') ? 2 : 0;
}

function isOws(char: string): boolean {
  return char === ' ' || char === '\t';
}

/**
 * True when the If-None-Match `list` holds an entity-tag weakly equal to `etag`
 * (RFC 9110 §13.1.2: `*` matches any stored representation). A malformed list
 * matches nothing: the client then gets the whole object, which is always correct.
 */
export function noneMatchHolds(list: string, etag: string): boolean {
  if (list.length > MAX_IF_NONE_MATCH) return false;
  const trimmed = list.trim();
  if (trimmed === '*') return true;
  const opaque = etag.slice(opaqueStart(etag));
  if (opaque.length < 2 || opaque[0] !== '"' || opaque[opaque.length - 1] !== '"') return false;
  let index = 0;
  while (index < list.length) {
    const char = list[index];
    if (char === ',' || isOws(char)) {
      index++;
      continue;
    }
    if (list.startsWith('W/', index)) index += 2;
    if (list[index] !== '"') return false;
    const close = list.indexOf('"', index + 1);
    if (close === -1) return false;
    if (close + 1 - index === opaque.length && list.startsWith(opaque, index)) return true;
    index = close + 1;
    while (index < list.length && isOws(list[index])) index++;
    if (index < list.length && list[index] !== ',') return false;
  }
  return false;
}

// RFC 9110 §13.1.3: one valid HTTP-date, not in the future. The stored response's modification
// time is its Last-Modified, else its Date, else when it was stored (RFC 9111 §4.3.2).
function modifiedSinceHolds(since: string, stored: ResponseHeaders, storedAt: number, now: number): boolean {
  const limit = parseHttpDate(since.trim(), now);
  if (Number.isNaN(limit) || limit > now) return false;
  let modified = parseHttpDate(headerText(stored, 'last-modified'), now);
  if (Number.isNaN(modified)) modified = parseHttpDate(headerText(stored, 'date'), now);
  if (Number.isNaN(modified)) modified = storedAt;
  return modified <= limit;
}

/** True when the request's preconditions say the client's copy is current, so a stored 2xx (stored at `storedAt`) is answered with 304 (only GET and HEAD get here). */
export function notModified(request: IncomingHttpHeaders, stored: ResponseHeaders, storedAt: number, now: number): boolean {
  const noneMatch = request['if-none-match'];
  if (noneMatch !== undefined) {
    const etag = headerText(stored, 'etag');
    return noneMatch.trim() === '*' || (etag !== '' && noneMatchHolds(noneMatch, etag));
  }
  const since = request['if-modified-since'];
  return since !== undefined && modifiedSinceHolds(since, stored, storedAt, now);
}

/** The 304 answering a conditional request from the response headers `headers` (Age and X-Cache already set). */
export function notModifiedResponse(headers: ResponseHeaders): EdgeResponse {
  const kept: ResponseHeaders = { age: headers.age, 'x-cache': headers['x-cache'] };
  for (const name of NOT_MODIFIED_HEADERS) if (headers[name] !== undefined) kept[name] = headers[name];
  if (headers.etag === undefined && headers['last-modified'] !== undefined) kept['last-modified'] = headers['last-modified'];
  return { status: 304, headers: kept, body: null };
}

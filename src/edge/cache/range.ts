// Answers a single byte range from a cached body (RFC 9110 §14). Several
// ranges, other units and malformed values are ignored: the whole object is sent.
import { Buffer } from 'node:buffer';
import type { EdgeResponse, ResponseHeaders } from '../pipeline/response.js';
import { sendable, sendablePart, type StoredBody } from './disk-body.js';

/** A satisfiable range, both ends inclusive. */
export type ByteRange = { start: number; end: number };

const SPEC = /^bytes=(\d{0,15})-(\d{0,15})$/;

/** The range a Range header asks of a body of `length` bytes: a range, 'unsatisfiable', or undefined (ignore the header). */
export function parseRange(header: string | undefined, length: number): ByteRange | 'unsatisfiable' | undefined {
  if (header === undefined || header.length > 64) return undefined;
  const parts = SPEC.exec(header.trim());
  if (!parts) return undefined;
  const [, first, last] = parts;
  if (first === '') {
    if (last === '') return undefined;
    const suffix = Number(last);
    if (suffix === 0 || length === 0) return 'unsatisfiable';
    return { start: Math.max(0, length - suffix), end: length - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return undefined;
  if (start >= length) return 'unsatisfiable';
  return { start, end: last === '' ? length - 1 : Math.min(Number(last), length - 1) };
}

/**
 * The response to a Range request for `body`: 206 with Content-Range, 416 with `bytes *\/length`, or
 * the whole 200 when the header is ignored; no body for HEAD (`headOnly`), so a body on disk is not
 * opened for it. `headers` is the caller's own copy and is changed.
 */
export function rangeResponse(headers: ResponseHeaders, body: StoredBody, header: string | undefined, headOnly = false): EdgeResponse {
  const range = parseRange(header, body.length);
  if (range === undefined) return { status: 200, headers, body: headOnly ? null : sendable(body) };
  if (range === 'unsatisfiable') {
    headers['content-range'] = `bytes */${body.length}`;
    headers['content-length'] = '0';
    return { status: 416, headers, body: headOnly ? null : Buffer.alloc(0) };
  }
  headers['content-range'] = `bytes ${range.start}-${range.end}/${body.length}`;
  headers['content-length'] = String(range.end - range.start + 1);
  return { status: 206, headers, body: headOnly ? null : sendablePart(body, range.start, range.end) };
}

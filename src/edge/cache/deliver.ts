// Builds the response to a request from a stored object: Age, X-Cache, and the
// request's conditional headers (conditional.ts), Range and HEAD answered from the object.
import type { CacheStatus, RequestContext } from '../pipeline/context.js';
import type { EdgeResponse, ResponseHeaders } from '../pipeline/response.js';
import { headerText } from './cache-control.js';
import { notModified, notModifiedResponse } from './conditional.js';
import { sendable } from './disk-body.js';
import { rangeResponse } from './range.js';
import type { CacheEntry } from './types.js';

// If-Range with a validator that no longer matches asks for the whole object.
function rangeStillValid(ifRange: string | string[] | undefined, headers: ResponseHeaders): boolean {
  if (ifRange === undefined) return true;
  const value = (typeof ifRange === 'string' ? ifRange : ifRange.join(',')).trim();
  if (value.startsWith('"')) return value === headerText(headers, 'etag');
  return value !== '' && value === headerText(headers, 'last-modified');
}

/** The response serving `entry` to `ctx` with the given X-Cache status (a fresh header object: later phases change it). */
export function deliver(ctx: RequestContext, entry: CacheEntry, status: CacheStatus, now: number): EdgeResponse {
  // Object.assign, not a spread: V8 makes a spread copy that then gains properties ~20x slower.
  const headers: ResponseHeaders = Object.assign({}, entry.headers);
  headers.age = String(Math.max(0, Math.floor((now - entry.storedAt) / 1000)));
  headers['x-cache'] = status;
  ctx.cacheStatus = status;
  const head = ctx.method === 'HEAD';
  const request = ctx.headers;
  if ((request['if-none-match'] !== undefined || request['if-modified-since'] !== undefined) && entry.status < 300 && notModified(request, headers, entry.storedAt, now)) return notModifiedResponse(headers);
  if (entry.status !== 200) return { status: entry.status, headers, body: head ? null : sendable(entry.body) };
  headers['accept-ranges'] = 'bytes';
  if (request.range === undefined || !rangeStillValid(request['if-range'], headers)) return { status: 200, headers, body: head ? null : sendable(entry.body) };
  return rangeResponse(headers, entry.body, request.range, head);
}

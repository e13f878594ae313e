// Revalidation of an expired object (RFC 9111 §4.3): the conditional headers that ask the origin
// whether it changed, and the stored headers a 304 that confirmed it updates.
import type { EdgeResponse } from '../pipeline/response.js';
import { headerText } from './cache-control.js';
import type { CacheEntry } from './types.js';

/** The validators of a stored object, as the conditional headers that ask the origin whether it changed. */
export function validatorsOf(entry: CacheEntry | undefined): Record<string, string> | undefined {
  if (!entry || entry.marker) return undefined;
  const etag = headerText(entry.headers, 'etag');
  const modified = headerText(entry.headers, 'last-modified');
  if (etag === '' && modified === '') return undefined;
  const conditional: Record<string, string> = {};
  if (etag !== '') conditional['if-none-match'] = etag;
  if (modified !== '') conditional['if-modified-since'] = modified;
  return conditional;
}

// Headers a 304 does not update (RFC 9111 §3.2: those describing the body; the edge's own).
const KEPT_ON_UPDATE = new Set(['content-length', 'content-encoding', 'content-type', 'content-range', 'transfer-encoding', 'x-cache', 'age']);

/** A stored object's headers updated with those of a 304 that confirmed it. */
export function updatedHeaders(stored: CacheEntry['headers'], confirmation: EdgeResponse['headers']): CacheEntry['headers'] {
  const headers = Object.assign({}, stored);
  for (const name in confirmation) if (!KEPT_ON_UPDATE.has(name)) headers[name] = confirmation[name];
  return headers;
}

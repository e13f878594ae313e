// Parsing of the response headers freshness depends on. Bounded: at most
// MAX_DIRECTIVES directives of a header at most MAX_HEADER characters long.
import type { ResponseHeaders } from '../pipeline/response.js';

const MAX_HEADER = 4096;
const MAX_DIRECTIVES = 32;
/** Larger delta-seconds are capped (RFC 9111 §1.2.2 suggests 2^31). */
const MAX_SECONDS = 2 ** 31;
const TOKEN = /^[!#$%&'+.^_`|~0-9a-z-]{1,128}$/;

/** Directive name (lower case) → its value ('' when it has none). */
export type Directives = ReadonlyMap<string, string>;

/** A header's value as one string ('' when absent; repeated headers joined with ', '). */
export function headerText(headers: ResponseHeaders, name: string): string {
  const value = headers[name];
  if (value === undefined) return '';
  return typeof value === 'string' ? value : value.join(', ');
}

/** The directives of a Cache-Control value. */
export function parseCacheControl(value: string): Directives {
  const directives = new Map<string, string>();
  if (value === '') return directives;
  const parts = value.slice(0, MAX_HEADER).split(',', MAX_DIRECTIVES);
  for (const part of parts) {
    const eq = part.indexOf('=');
    const name = (eq === -1 ? part : part.slice(0, eq)).trim().toLowerCase();
    if (name === '' || directives.has(name)) continue;
    directives.set(name, eq === -1 ? '' : part.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1'));
  }
  return directives;
}

/** A delta-seconds directive: undefined when absent, 0 when malformed (treated as stale, RFC 9111 §4.2.1). */
export function deltaSeconds(directives: Directives, name: string): number | undefined {
  const value = directives.get(name);
  if (value === undefined) return undefined;
  if (!/^\d{1,12}$/.test(value)) return 0;
  return Math.min(Number(value), MAX_SECONDS);
}

/**
 * The lower-case header names of a Vary value, sorted. `['*']` when the response
 * varies on something the edge cannot key on: `*` itself, or a Vary it cannot
 * read whole (longer than MAX_HEADER, more than MAX_DIRECTIVES names, a name
 * that is not a token). Storing such a response under a partial list could
 * serve one client's variant to another.
 */
export function varyNames(value: string): string[] {
  if (value === '') return [];
  if (value.length > MAX_HEADER) return ['*'];
  const names = new Set<string>();
  for (const part of value.split(',')) {
    const name = part.trim().toLowerCase();
    if (name === '') continue;
    if (name === '*' || !TOKEN.test(name) || names.size === MAX_DIRECTIVES) return ['*'];
    names.add(name);
  }
  return [...names].sort();
}

/** The origin's Age header in seconds (0 when absent or malformed). */
export function originAge(headers: ResponseHeaders): number {
  const value = headerText(headers, 'age').trim();
  return /^\d{1,12}$/.test(value) ? Math.min(Number(value), MAX_SECONDS) : 0;
}

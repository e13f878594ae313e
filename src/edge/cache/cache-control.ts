// Parsing of the response headers freshness depends on. Bounded: at most
// MAX_DIRECTIVES directives of a header at most MAX_HEADER characters long.
import type { ResponseHeaders } from '../pipeline/response.js';

const MAX_HEADER = 4096;
const MAX_DIRECTIVES = 32;
/** Larger delta-seconds are capped (RFC 9111 §1.2.2 suggests 2^31). */
const MAX_SECONDS = 2 ** 31;
const TOKEN = /^[!#$%&'+.^_`|~0-9a-z-]{1,128}$/;
/** A directive name, then whatever follows it. */
const DIRECTIVE = /^([!#$%&'+.^_`|~0-9A-Za-z-]{1,128})([\s\S]*)$/;
const ARGUMENT_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;

/**
 * Directive name (lower case) → its argument: '' when it has none, the unquoted
 * text of a token or quoted-string argument, null when the argument is malformed
 * (whitespace around `=`, an unterminated quoted string, stray characters).
 */
export type Directives = ReadonlyMap<string, string | null>;

/** A header's value as one string ('' when absent; repeated headers joined with ', '). */
export function headerText(headers: ResponseHeaders, name: string): string {
  const value = headers[name];
  if (value === undefined) return '';
  return typeof value === 'string' ? value : value.join(', ');
}

// The members of a comma-separated list, commas inside quoted strings kept (`no-cache="a, b"`).
function listMembers(value: string): string[] {
  const members: string[] = [];
  let start = 0;
  let quoted = false;
  for (let index = 0; index < value.length && members.length < MAX_DIRECTIVES; index++) {
    const char = value[index];
    if (quoted && char === '\\') index++;
    else if (char === '"') quoted = !quoted;
    else if (char === ',' && !quoted) {
      members.push(value.slice(start, index));
      start = index + 1;
    }
  }
  if (members.length < MAX_DIRECTIVES) members.push(value.slice(start));
  return members;
}

// RFC 9111 §5.2: token [ "=" ( token / quoted-string ) ], no whitespace around "=".
function argumentOf(text: string): string | null {
  if (ARGUMENT_TOKEN.test(text)) return text;
  if (text.length < 2 || text[0] !== '"') return null;
  let unquoted = '';
  for (let index = 1; index < text.length; index++) {
    const char = text[index];
    if (char === '"') return index === text.length - 1 ? unquoted : null;
    if (char === '\\') index++;
    unquoted += text[index] ?? '';
  }
  return null;
}

/**
 * The directives of a Cache-Control value (the first occurrence of a directive
 * wins, RFC 9111 §4.2.1). A member that starts with a directive name but is
 * malformed after it (`max-age = 60`, `no-store junk`) still names its
 * directive, with a null argument: a restrictive directive keeps its effect.
 */
export function parseCacheControl(value: string): Directives {
  const directives = new Map<string, string | null>();
  if (value === '') return directives;
  for (const member of listMembers(value.slice(0, MAX_HEADER))) {
    const parts = DIRECTIVE.exec(member.trim());
    if (!parts) continue;
    const name = parts[1].toLowerCase();
    const rest = parts[2];
    if (!directives.has(name)) directives.set(name, rest === '' ? '' : rest[0] === '=' ? argumentOf(rest.slice(1)) : null);
  }
  return directives;
}

/**
 * A delta-seconds directive (RFC 9111 §1.2.2): undefined when absent, null when
 * present but not a non-negative integer (`max-age=1.5`, `max-age = 60`), else
 * the seconds, capped at 2^31.
 */
export function deltaSeconds(directives: Directives, name: string): number | null | undefined {
  const value = directives.get(name);
  if (value === undefined) return undefined;
  if (value === null || !/^\d{1,15}$/.test(value)) return null;
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

/** The origin's Age header in seconds: delta-seconds only (RFC 9111 §5.1); absent, a parameter, a suffix or a list count as 0. */
export function originAge(headers: ResponseHeaders): number {
  const value = headerText(headers, 'age').trim();
  return /^\d{1,15}$/.test(value) ? Math.min(Number(value), MAX_SECONDS) : 0;
}

import { CONTROL_CHARACTERS_DETAIL, encodeForLocation, hasControlCharacter } from '../control-characters.js';
import type { MatchCaptures, RequestFacts } from './types.js';

export type RedirectAction = { target: string; status_code: number; preserve_query: boolean; preserve_path: boolean };

/** Why a redirect target is unacceptable, or undefined: it must be an absolute http(s) URL or a path. */
export function redirectTargetProblem(target: string): string | undefined {
  if (hasControlCharacter(target)) return `the target ${CONTROL_CHARACTERS_DETAIL}`;
  if (target.startsWith('/')) return target.startsWith('//') ? 'a target starting with // is ambiguous; write the scheme' : undefined;
  try {
    const url = new URL(target.replace(/\$\d/g, 'x'));
    return url.protocol === 'http:' || url.protocol === 'https:' ? undefined : 'the target must be an http(s) URL or a path starting with /';
  } catch {
    return 'the target must be an http(s) URL or a path starting with /';
  }
}

function queryString(query: Record<string, readonly string[]>): string {
  const params = new URLSearchParams(Object.entries(query).flatMap(([name, values]) => values.map((value) => [name, value]))).toString();
  return params ? `?${params}` : '';
}

// Request text put into a Location: control characters percent-encoded (a `%0D%0A` must not
// become a line break), and `@` and `\` too, so that it cannot turn what precedes it into userinfo
// (`https://site$1` with `@evil.example`) or a path into a host (browsers read `/\` as `//`).
function requestText(text: string): string {
  return encodeForLocation(text).replace(/[@\\]/g, (char) => encodeURIComponent(char));
}

/**
 * The Location of a redirect: captures substituted for $1..$9, then the path and query appended when asked.
 * Captures and the path are decoded request text, encoded back where they could change the
 * meaning of the Location; a Location that is a path keeps a single leading slash, since `//host`
 * would send the visitor to another site (an open redirect).
 */
export function redirectLocation(action: RedirectAction, captures: MatchCaptures, facts: RequestFacts): string {
  let location = action.target.replace(/\$(\d)/g, (_, digit: string) => requestText(captures[Number(digit) - 1] ?? ''));
  if (action.preserve_path) location = `${location.replace(/\/$/, '')}${requestText(facts.path)}`;
  if (location.startsWith('/')) location = location.replace(/^\/+/, '/');
  if (action.preserve_query && Object.keys(facts.query).length > 0) {
    location += location.includes('?') ? `&${queryString(facts.query).slice(1)}` : queryString(facts.query);
  }
  return location;
}

import { CONTROL_CHARACTERS_DETAIL, encodeControlCharacters, hasControlCharacter } from '../control-characters.js';
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

function queryString(query: Record<string, string>): string {
  const params = new URLSearchParams(query).toString();
  return params ? `?${params}` : '';
}

/**
 * The Location of a redirect: captures substituted for $1..$9, then the path and query appended when asked.
 * Captures and the path are decoded request text: a `%0D%0A` in the request must not become a line
 * break in the Location header, so control characters from them go back to percent-escapes.
 */
export function redirectLocation(action: RedirectAction, captures: MatchCaptures, facts: RequestFacts): string {
  let location = action.target.replace(/\$(\d)/g, (_, digit: string) => encodeControlCharacters(captures[Number(digit) - 1] ?? ''));
  if (action.preserve_path) location = `${location.replace(/\/$/, '')}${encodeControlCharacters(facts.path)}`;
  if (action.preserve_query && Object.keys(facts.query).length > 0) {
    location += location.includes('?') ? `&${queryString(facts.query).slice(1)}` : queryString(facts.query);
  }
  return location;
}

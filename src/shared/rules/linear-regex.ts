import { RE2JS } from 're2js';

// Regex patterns run on RE2 (the re2js port): matching time grows linearly with
// the input whatever the pattern, so no rule can stall the edge or the core's
// rule tester. The price is RE2's syntax: no backreferences, no lookaround.

/**
 * The longest value (in UTF-16 code units) a regex pattern is run on; a longer
 * value never matches a regex pattern. Linear time still grows with the input,
 * and Node's HTTP server refuses requests whose headers (request line included)
 * exceed 16 KiB by default, so an edge never sees a longer path or header value.
 */
export const MAX_REGEX_INPUT = 16_384;

/** A compiled regex pattern: `test` searches (unanchored, like RegExp#test); `groups` returns the capture groups of the first match. */
export type LinearRegex = { test: (value: string) => boolean; groups: (value: string) => string[] | undefined };

// Syntax JavaScript accepts and RE2 refuses: backreferences and lookaround.
const BACKTRACKING_ONLY = /\\[1-9]|\\k<|\(\?<?[=!]/;

const META = new Set(['\\', '.', '+', '*', '?', '(', ')', '[', ']', '{', '}', '|', '^', '$']);
const QUANTIFIERS = new Set(['*', '+', '?', '{']);

/**
 * The literal text every match of a start-anchored regex begins with (`^/api/v(\d+)` → `/api/v`),
 * or '' when there is none to be sure of. A cheap startsWith check then turns most requests
 * away before RE2 runs (RE2JS costs a microsecond or so per call, a RegExp a tenth of that).
 * Conservative: any `|` in the pattern, any escape but an escaped punctuation character and any
 * character past ASCII stop it.
 */
export function anchoredLiteralPrefix(source: string): string {
  if (!source.startsWith('^') || source.includes('|')) return '';
  let prefix = '';
  for (let index = 1; index < source.length; index++) {
    let char = source[index];
    if (char === '\\') {
      const escaped = source[index + 1] ?? '';
      if (!/^[!-/:-@[-`{-~]$/.test(escaped)) break;
      char = escaped;
      index++;
    } else if (META.has(char)) {
      // A quantifier applies to the character before it, which is then not certain to be there.
      if (QUANTIFIERS.has(char)) prefix = prefix.slice(0, -1);
      break;
    }
    // Past ASCII a quantifier may apply to a two-unit character: stop there.
    if (char > '~') break;
    prefix += char;
  }
  return prefix;
}

/**
 * The prefix a case-insensitive test can check in the lower-cased value it is given: the literal
 * start lower-cased, cut before its first `s`, since RE2 folds the long s (U+017F) to `s` and
 * toLowerCase leaves it alone (the Kelvin sign, the other non-ASCII fold of an ASCII letter,
 * lower-cases to `k`).
 */
function foldedPrefix(source: string): string {
  const prefix = anchoredLiteralPrefix(source).toLowerCase();
  const longS = prefix.indexOf('s');
  return longS === -1 ? prefix : prefix.slice(0, longS);
}

const NEVER: LinearRegex = { test: () => false, groups: () => undefined };

/**
 * Compiles a regex pattern for RE2. Writes refuse what RE2 cannot run (see
 * linearRegexProblem); a pattern stored before that check which RE2 refuses
 * never matches, so one old rule cannot stop a whole rule set from compiling.
 */
export function compileLinearRegex(source: string, caseSensitive: boolean): LinearRegex {
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(source, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
  } catch {
    return NEVER;
  }
  // A case-insensitive test is given the value lower-cased (see compilePattern).
  const prefix = caseSensitive ? anchoredLiteralPrefix(source) : foldedPrefix(source);
  return {
    test: (value) => value.length <= MAX_REGEX_INPUT && value.startsWith(prefix) && regex.test(value),
    groups: (value) => {
      if (value.length > MAX_REGEX_INPUT) return undefined;
      const found = regex.exec(value);
      return found ? found.slice(1).map((group: string | undefined) => group ?? '') : undefined;
    },
  };
}

/** Why RE2 cannot run `source`, or undefined when it can. */
export function linearRegexProblem(source: string): string | undefined {
  try {
    RE2JS.compile(source);
    return undefined;
  } catch (error) {
    const reason = (error as Error).message.replace(/^error parsing regexp: /, '');
    if (BACKTRACKING_ONLY.test(source)) {
      return `regular expression not supported: backreferences (\\1, \\k<name>) and lookaround ((?=, (?!, (?<=, (?<!) need a backtracking engine, and patterns run on RE2, which matches in linear time (${reason})`;
    }
    return `invalid regular expression (RE2 syntax): ${reason}`;
  }
}

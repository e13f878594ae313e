import { globMatches, globSpans, parseGlob } from './glob.js';
import { compileLinearRegex, linearRegexProblem } from './linear-regex.js';
import type { Pattern } from './types.js';

export const MAX_PATTERN_LENGTH = 512;

/** A compiled pattern test. Case-insensitive tests expect an already lower-cased value. */
export type PatternTest = (value: string) => boolean;

/** The capture groups of a pattern in a value (regex groups, or the run each `*` stands for), or undefined when it does not match. */
export type PatternCaptures = (value: string) => string[] | undefined;

/** Why a pattern is unacceptable at write time, or undefined when it is fine. */
export function patternProblem(pattern: Pattern): string | undefined {
  if (pattern.value.length > MAX_PATTERN_LENGTH) return `patterns are at most ${MAX_PATTERN_LENGTH} characters`;
  return pattern.kind === 'regex' ? linearRegexProblem(pattern.value) : undefined;
}

/** True when the pattern compares case-sensitively (given the default of where it is used). */
export function isCaseSensitive(pattern: Pattern, caseSensitiveByDefault: boolean): boolean {
  return pattern.case_sensitive ?? caseSensitiveByDefault;
}

// The runs of a glob's stars, sliced from the value as given. A case-insensitive glob
// is placed in the lower-cased value; lower-casing keeps offsets unless the value holds
// one of the few characters whose lower case is longer, whose runs then come lower-cased.
function globCaptures(glob: string, caseSensitive: boolean): PatternCaptures {
  const parsed = parseGlob(caseSensitive ? glob : glob.toLowerCase());
  return (value) => {
    const searched = caseSensitive ? value : value.toLowerCase();
    const spans = globSpans(parsed, searched);
    if (!spans) return undefined;
    const source = searched.length === value.length ? value : searched;
    const runs: string[] = [];
    for (let star = 0; star < spans.length; star += 2) runs.push(source.slice(spans[star], spans[star + 1]));
    return runs;
  };
}

/** The captures of a pattern that can capture groups (regex, or wildcard with `*`), for substitution. */
export function compileCaptures(pattern: Pattern, caseSensitive: boolean): PatternCaptures | undefined {
  if (pattern.kind === 'regex') return compileLinearRegex(pattern.value, caseSensitive).groups;
  if (pattern.kind === 'wildcard' && pattern.value.includes('*')) return globCaptures(pattern.value, caseSensitive);
  return undefined;
}

// The common wildcard shapes become single string operations; the rest a glob match.
function compileWildcard(glob: string): PatternTest {
  const parsed = parseGlob(glob);
  const inner = glob.slice(1, -1);
  if (parsed.stars === 0) return (value) => value === glob;
  if (parsed.stars === 1 && glob.endsWith('*')) return prefixTest(parsed.head);
  if (parsed.stars === 1 && glob.startsWith('*')) {
    const suffix = parsed.tail;
    return (value) => value.endsWith(suffix);
  }
  if (parsed.stars === 2 && glob.startsWith('*') && glob.endsWith('*')) return (value) => value.includes(inner);
  return (value) => globMatches(parsed, value);
}

function prefixTest(prefix: string): PatternTest {
  return (value) => value.startsWith(prefix);
}

/**
 * Compiles a pattern once into a fast boolean test. A case-insensitive test
 * expects the value lower-cased by the caller (once per request, not per rule).
 */
export function compilePattern(pattern: Pattern, caseSensitive: boolean): PatternTest {
  const expected = caseSensitive || pattern.kind === 'regex' ? pattern.value : pattern.value.toLowerCase();
  switch (pattern.kind) {
    case 'exact':
      return (value) => value === expected;
    case 'prefix':
      return prefixTest(expected);
    case 'wildcard':
      return compileWildcard(expected);
    case 'regex':
      return compileLinearRegex(expected, caseSensitive).test;
  }
}

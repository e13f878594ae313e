import safeRegex from 'safe-regex2';
import type { Pattern } from './types.js';

export const MAX_PATTERN_LENGTH = 512;

/** A compiled pattern test. Case-insensitive tests expect an already lower-cased value. */
export type PatternTest = (value: string) => boolean;

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The regular expression a `*` wildcard stands for: `*` is any run of characters, the rest is literal. */
export function wildcardSource(value: string): string {
  return `^${value.split('*').map(escapeRegex).join('(.*)')}$`;
}

/** Why a pattern is unacceptable at write time, or undefined when it is fine. */
export function patternProblem(pattern: Pattern): string | undefined {
  if (pattern.value.length > MAX_PATTERN_LENGTH) return `patterns are at most ${MAX_PATTERN_LENGTH} characters`;
  if (pattern.kind !== 'regex') return undefined;
  try {
    new RegExp(pattern.value);
  } catch (error) {
    return `invalid regular expression: ${(error as Error).message}`;
  }
  if (!safeRegex(pattern.value)) return 'regular expression rejected: nested quantifiers can take exponential time (catastrophic backtracking)';
  return undefined;
}

/** True when the pattern compares case-sensitively (given the default of where it is used). */
export function isCaseSensitive(pattern: Pattern, caseSensitiveByDefault: boolean): boolean {
  return pattern.case_sensitive ?? caseSensitiveByDefault;
}

/** The regular expression of a pattern that can capture groups (regex, or wildcard with `*`), for substitution. */
export function captureRegex(pattern: Pattern, caseSensitive: boolean): RegExp | undefined {
  if (pattern.kind === 'regex') return new RegExp(pattern.value, caseSensitive ? '' : 'i');
  if (pattern.kind === 'wildcard' && pattern.value.includes('*')) return new RegExp(wildcardSource(pattern.value), caseSensitive ? 's' : 'is');
  return undefined;
}

// The common wildcard shapes become string operations; the rest a regular expression.
function compileWildcard(glob: string): PatternTest {
  const stars = glob.split('*').length - 1;
  const inner = glob.slice(1, -1);
  if (stars === 0) return (value) => value === glob;
  if (stars === 1 && glob.endsWith('*')) return prefixTest(glob.slice(0, -1));
  if (stars === 1 && glob.startsWith('*')) {
    const suffix = glob.slice(1);
    return (value) => value.endsWith(suffix);
  }
  if (stars === 2 && glob.startsWith('*') && glob.endsWith('*') && !inner.includes('*')) return (value) => value.includes(inner);
  const regex = new RegExp(wildcardSource(glob), 's');
  return (value) => regex.test(value);
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
    case 'regex': {
      const regex = new RegExp(expected, caseSensitive ? '' : 'i');
      return (value) => regex.test(value);
    }
  }
}

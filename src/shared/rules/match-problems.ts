import { countries } from 'countries-list';
import { normalizeCidr } from './ip-set.js';
import { patternProblem } from './patterns.js';
import type { Match, NamedCondition, Pattern } from './types.js';

/** A write-time problem in a match, with the dotted path of the offending field. */
export type MatchProblem = { field: string; detail: string };

const COUNTRY_CODES = new Set(Object.keys(countries));

/** True for an ISO 3166-1 alpha-2 country code (upper case). */
export function isCountryCode(code: string): boolean {
  return COUNTRY_CODES.has(code);
}

function patternProblems(patterns: Pattern[] | undefined, field: string): MatchProblem[] {
  return (patterns ?? []).flatMap((pattern, index) => {
    const detail = patternProblem(pattern);
    return detail ? [{ field: `${field}.${index}.value`, detail }] : [];
  });
}

function namedProblems(conditions: NamedCondition[] | undefined, field: string): MatchProblem[] {
  return (conditions ?? []).flatMap((condition, index) => {
    if (condition.present === false && condition.pattern) {
      return [{ field: `${field}.${index}.pattern`, detail: 'a condition cannot require absence and a value pattern at once' }];
    }
    const detail = condition.pattern ? patternProblem(condition.pattern) : undefined;
    return detail ? [{ field: `${field}.${index}.pattern.value`, detail }] : [];
  });
}

function countryProblems(codes: string[] | undefined, field: string): MatchProblem[] {
  return (codes ?? []).flatMap((code, index) => (isCountryCode(code) ? [] : [{ field: `${field}.${index}`, detail: `${JSON.stringify(code)} is not an ISO 3166-1 alpha-2 country code` }]));
}

function cidrProblems(cidrs: string[] | undefined, field: string): MatchProblem[] {
  return (cidrs ?? []).flatMap((cidr, index) => (normalizeCidr(cidr) ? [] : [{ field: `${field}.${index}`, detail: `${JSON.stringify(cidr)} is not an IP address or CIDR` }]));
}

/**
 * Everything wrong with a match that its JSON Schema cannot see: invalid or
 * catastrophic-backtracking regexes, over-long patterns, unknown country codes,
 * invalid CIDRs. `prefix` is the field path of the match itself.
 */
export function matchProblems(match: Match, prefix = 'match'): MatchProblem[] {
  return [
    ...patternProblems(match.hosts, `${prefix}.hosts`),
    ...patternProblems(match.paths, `${prefix}.paths`),
    ...namedProblems(match.query, `${prefix}.query`),
    ...namedProblems(match.headers, `${prefix}.headers`),
    ...namedProblems(match.cookies, `${prefix}.cookies`),
    ...countryProblems(match.countries, `${prefix}.countries`),
    ...countryProblems(match.not_countries, `${prefix}.not_countries`),
    ...cidrProblems(match.ips, `${prefix}.ips`),
    ...cidrProblems(match.not_ips, `${prefix}.not_ips`),
  ];
}

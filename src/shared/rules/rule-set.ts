import { compileMatch, PreparedRequest, type CompiledMatch } from './compile.js';
import type { Match, MatchCaptures, RequestFacts } from './types.js';

/** The fields every rule kind shares. */
export type RuleBase = { id: string; name: string; enabled: boolean; priority: number; match: Match };

/** A kind's own condition on top of `match` (an IP rule's CIDR, a page rule's URL pattern…). */
export type ExtraCondition<R> = (rule: R) => ((request: PreparedRequest) => boolean) | undefined;

type Entry<R> = { rule: R; matches: CompiledMatch };
export type RuleSet<R> = readonly Entry<R>[];
export type RuleHit<R> = { rule: R; captures: MatchCaptures };

function withExtra(matches: CompiledMatch, extra: ((request: PreparedRequest) => boolean) | undefined): CompiledMatch {
  if (!extra) return matches;
  return { test: (request) => extra(request) && matches.test(request), captures: matches.captures };
}

/** Compiles the enabled rules of one kind in evaluation order: priority ascending, then name, then id. */
export function compileRuleSet<R extends RuleBase>(rules: readonly R[], extra?: ExtraCondition<R>): RuleSet<R> {
  return rules
    .filter((rule) => rule.enabled)
    .sort((a, b) => a.priority - b.priority || a.name.localeCompare(b.name) || a.id.localeCompare(b.id))
    .map((rule) => ({ rule, matches: withExtra(compileMatch(rule.match), extra?.(rule)) }));
}

/** The first rule (in evaluation order) whose conditions all hold, with its captures. */
export function firstMatch<R>(set: RuleSet<R>, request: PreparedRequest): RuleHit<R> | undefined {
  for (const entry of set) {
    if (entry.matches.test(request)) return { rule: entry.rule, captures: entry.matches.captures(request) };
  }
  return undefined;
}

/** Every matching rule in evaluation order (for kinds where all apply, such as header rules). */
export function allMatches<R>(set: RuleSet<R>, request: PreparedRequest): RuleHit<R>[] {
  const hits: RuleHit<R>[] = [];
  for (const entry of set) {
    if (entry.matches.test(request)) hits.push({ rule: entry.rule, captures: entry.matches.captures(request) });
  }
  return hits;
}

/** Prepares request facts once for any number of rule sets. */
export function prepareRequest(facts: RequestFacts): PreparedRequest {
  return new PreparedRequest(facts);
}

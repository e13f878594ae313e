import { compileMatch, PreparedRequest, type CompiledMatch } from './compile.js';
import { indexKey } from './rule-index.js';
import type { Match, MatchCaptures, RequestFacts } from './types.js';

/** The fields every rule kind shares. */
export type RuleBase = { id: string; name: string; enabled: boolean; priority: number; match: Match };

/** A kind's own condition on top of `match` (an IP rule's CIDR, a page rule's URL pattern…). */
export type ExtraCondition<R> = (rule: R) => ((request: PreparedRequest) => boolean) | undefined;

type Entry<R> = { rule: R; matches: CompiledMatch };
export type RuleHit<R> = { rule: R; captures: MatchCaptures };

/**
 * Compiled rules in evaluation order plus an index: for a request, only the rules
 * filed under its first path segment, under its host, or always-checked are visited.
 */
export type RuleSet<R> = {
  readonly entries: readonly Entry<R>[];
  readonly byHead: ReadonlyMap<string, readonly number[]>;
  readonly byExtension: ReadonlyMap<string, readonly number[]>;
  readonly byHost: ReadonlyMap<string, readonly number[]>;
  readonly always: readonly number[];
};

const NONE: readonly number[] = [];

function file(map: Map<string, number[]>, key: string, index: number): void {
  const list = map.get(key);
  if (list) list.push(index);
  else map.set(key, [index]);
}

function buildIndex<R extends RuleBase>(entries: Entry<R>[]): RuleSet<R> {
  const byHead = new Map<string, number[]>();
  const byExtension = new Map<string, number[]>();
  const byHost = new Map<string, number[]>();
  const always: number[] = [];
  entries.forEach((entry, index) => {
    const key = indexKey(entry.rule.match);
    if (key === 'always') always.push(index);
    else if ('head' in key) file(byHead, key.head, index);
    else if ('extension' in key) file(byExtension, key.extension, index);
    else for (const host of new Set(key.hosts)) file(byHost, host, index);
  });
  return { entries, byHead, byExtension, byHost, always };
}

function listFor(map: ReadonlyMap<string, readonly number[]>, key: string): readonly number[] {
  return map.size ? (map.get(key) ?? NONE) : NONE;
}

/**
 * Calls `visit` on the candidate rules of a request in evaluation order (a
 * three-way merge of the sorted index lists) until it returns true.
 */
function visitCandidates<R>(set: RuleSet<R>, request: PreparedRequest, visit: (entry: Entry<R>) => boolean): void {
  const lists = [listFor(set.byHead, request.pathHead), listFor(set.byExtension, request.pathExtension), listFor(set.byHost, request.host), set.always];
  const positions = [0, 0, 0, 0];
  for (;;) {
    let next = Infinity;
    for (let list = 0; list < 4; list++) if (positions[list] < lists[list].length && lists[list][positions[list]] < next) next = lists[list][positions[list]];
    if (next === Infinity) return;
    for (let list = 0; list < 4; list++) if (lists[list][positions[list]] === next) positions[list]++;
    if (visit(set.entries[next])) return;
  }
}

function withExtra(matches: CompiledMatch, extra: ((request: PreparedRequest) => boolean) | undefined): CompiledMatch {
  if (!extra) return matches;
  return { test: (request) => extra(request) && matches.test(request), captures: matches.captures };
}

/** Compiles the enabled rules of one kind in evaluation order: priority ascending, then name, then id. */
export function compileRuleSet<R extends RuleBase>(rules: readonly R[], extra?: ExtraCondition<R>): RuleSet<R> {
  const entries = rules
    .filter((rule) => rule.enabled)
    .sort((a, b) => a.priority - b.priority || a.name.localeCompare(b.name) || a.id.localeCompare(b.id))
    .map((rule) => ({ rule, matches: withExtra(compileMatch(rule.match), extra?.(rule)) }));
  return buildIndex(entries);
}

/** The first rule (in evaluation order) whose conditions all hold, with its captures. */
export function firstMatch<R>(set: RuleSet<R>, request: PreparedRequest): RuleHit<R> | undefined {
  let hit: Entry<R> | undefined;
  visitCandidates(set, request, (entry) => {
    if (!entry.matches.test(request)) return false;
    hit = entry;
    return true;
  });
  return hit && { rule: hit.rule, captures: hit.matches.captures(request) };
}

/** Every matching rule in evaluation order (for kinds where all apply, such as header rules). */
export function allMatches<R>(set: RuleSet<R>, request: PreparedRequest): RuleHit<R>[] {
  const hits: RuleHit<R>[] = [];
  visitCandidates(set, request, (entry) => {
    if (entry.matches.test(request)) hits.push({ rule: entry.rule, captures: entry.matches.captures(request) });
    return false;
  });
  return hits;
}

/** Prepares request facts once for any number of rule sets. */
export function prepareRequest(facts: RequestFacts): PreparedRequest {
  return new PreparedRequest(facts);
}

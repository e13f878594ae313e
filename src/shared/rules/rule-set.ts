import { compileMatch, PreparedRequest, type CompiledMatch } from './compile.js';
import { indexKey } from './rule-index.js';
import type { Match, MatchCaptures, RequestFacts } from './types.js';

/** The fields every rule kind shares. A rule without `enabled` (as in config snapshots, which carry enabled rules only) is enabled. */
export type RuleBase = { id: string; name: string; enabled?: boolean; priority: number; match: Match };

/** A kind's own condition on top of `match` (an IP rule's CIDR, a page rule's URL pattern…). */
export type ExtraCondition<R> = (rule: R) => ((request: PreparedRequest) => boolean) | undefined;

type Entry<R> = { rule: R; matches: CompiledMatch };
/** A matching rule; `captures` is computed on first read (only redirects and page rules use it, and a regex's groups cost far more than its test). */
export type RuleHit<R> = { rule: R; readonly captures: MatchCaptures };

/**
 * Compiled rules in evaluation order plus an index: for a request, only the rules
 * filed under its first path segment, under its host, or always-checked are visited.
 */
export type RuleSet<R> = {
  readonly entries: readonly Entry<R>[];
  readonly byHead: ReadonlyMap<number, readonly number[]>;
  readonly byExtension: ReadonlyMap<string, readonly number[]>;
  readonly byHost: ReadonlyMap<string, readonly number[]>;
  readonly byNetwork: ReadonlyMap<number, readonly number[]>;
  readonly always: readonly number[];
  /** Scratch space of the candidate merge, reused by every request (evaluation never re-enters a set). */
  readonly scratch: { lists: (readonly number[])[]; positions: number[]; order: number[] };
};

const NONE: readonly number[] = [];

function file<K>(map: Map<K, number[]>, key: K, index: number): void {
  const list = map.get(key);
  if (list) list.push(index);
  else map.set(key, [index]);
}

function buildIndex<R extends RuleBase>(entries: Entry<R>[]): RuleSet<R> {
  const byHead = new Map<number, number[]>();
  const byExtension = new Map<string, number[]>();
  const byHost = new Map<string, number[]>();
  const byNetwork = new Map<number, number[]>();
  const always: number[] = [];
  entries.forEach((entry, index) => {
    const key = indexKey(entry.rule.match);
    if (key === 'always') always.push(index);
    else if ('head' in key) file(byHead, key.head, index);
    else if ('extension' in key) file(byExtension, key.extension, index);
    else if ('hosts' in key) for (const host of new Set(key.hosts)) file(byHost, host, index);
    else for (const network of new Set(key.networks)) file(byNetwork, network, index);
  });
  return { entries, byHead, byExtension, byHost, byNetwork, always, scratch: { lists: [NONE, NONE, NONE, NONE, NONE], positions: [0, 0, 0, 0, 0], order: [] } };
}

/**
 * The candidate rules of a request in evaluation order: the one index list that applies to it, or
 * a merge of the sorted lists when several do. Returns a list owned by the set (valid until the
 * set's next evaluation; evaluation never re-enters a set). The scratch space is written only for
 * a merge: most requests meet one list or none, and each write to it costs a write barrier.
 */
function candidates<R>(set: RuleSet<R>, request: PreparedRequest): readonly number[] {
  // An empty map is not asked (nor its key computed: the path's head and extension, the address's network).
  const head = set.byHead.size ? (set.byHead.get(request.pathHead) ?? NONE) : NONE;
  const extension = set.byExtension.size ? (set.byExtension.get(request.pathExtension) ?? NONE) : NONE;
  const host = set.byHost.size ? (set.byHost.get(request.host) ?? NONE) : NONE;
  const network = set.byNetwork.size ? (set.byNetwork.get(request.networkKey) ?? NONE) : NONE;
  const always = set.always;
  const nonEmpty = (head.length ? 1 : 0) + (extension.length ? 1 : 0) + (host.length ? 1 : 0) + (network.length ? 1 : 0) + (always.length ? 1 : 0);
  if (nonEmpty === 0) return NONE;
  if (nonEmpty === 1) return head.length ? head : extension.length ? extension : host.length ? host : network.length ? network : always;
  const { lists, positions, order } = set.scratch;
  lists[0] = head;
  lists[1] = extension;
  lists[2] = host;
  lists[3] = network;
  lists[4] = always;
  positions.fill(0);
  order.length = 0;
  for (;;) {
    let next = Infinity;
    for (let list = 0; list < 5; list++) if (positions[list] < lists[list].length && lists[list][positions[list]] < next) next = lists[list][positions[list]];
    if (next === Infinity) return order;
    for (let list = 0; list < 5; list++) if (lists[list][positions[list]] === next) positions[list]++;
    order.push(next);
  }
}

function withExtra(matches: CompiledMatch, extra: ((request: PreparedRequest) => boolean) | undefined): CompiledMatch {
  if (!extra) return matches;
  return { test: (request) => extra(request) && matches.test(request), captures: matches.captures };
}

/** Evaluation order of the rules of one kind: priority ascending, then name, then id. */
export function evaluationOrder(a: RuleBase, b: RuleBase): number {
  return a.priority - b.priority || a.name.localeCompare(b.name) || a.id.localeCompare(b.id);
}

/** Compiles the enabled rules of one kind in evaluation order. */
export function compileRuleSet<R extends RuleBase>(rules: readonly R[], extra?: ExtraCondition<R>): RuleSet<R> {
  const entries = rules
    .filter((rule) => rule.enabled !== false)
    .sort(evaluationOrder)
    .map((rule) => ({ rule, matches: withExtra(compileMatch(rule.match), extra?.(rule)) }));
  return buildIndex(entries);
}

// A class, not an object literal with a getter: V8 builds those ten times slower.
class LazyHit<R> implements RuleHit<R> {
  private computed: MatchCaptures | undefined;

  constructor(
    readonly rule: R,
    private readonly matches: CompiledMatch,
    private readonly request: PreparedRequest,
  ) {}

  get captures(): MatchCaptures {
    return (this.computed ??= this.matches.captures(this.request));
  }
}

/** The first rule (in evaluation order) whose conditions all hold, with its captures. */
export function firstMatch<R>(set: RuleSet<R>, request: PreparedRequest): RuleHit<R> | undefined {
  const order = candidates(set, request);
  for (let i = 0; i < order.length; i++) {
    const entry = set.entries[order[i]];
    if (entry.matches.test(request)) return new LazyHit(entry.rule, entry.matches, request);
  }
  return undefined;
}

/** Every matching rule in evaluation order (for kinds where all apply, such as header rules). */
export function allMatches<R>(set: RuleSet<R>, request: PreparedRequest): RuleHit<R>[] {
  const hits: RuleHit<R>[] = [];
  const order = candidates(set, request);
  for (let i = 0; i < order.length; i++) {
    const entry = set.entries[order[i]];
    if (entry.matches.test(request)) hits.push(new LazyHit(entry.rule, entry.matches, request));
  }
  return hits;
}

/** Prepares request facts once for any number of rule sets. */
export function prepareRequest(facts: RequestFacts): PreparedRequest {
  return new PreparedRequest(facts);
}

import { compileIpSet, parseIp, type ParsedIp } from './ip-set.js';
import { networkKey, pathExtension, pathHead } from './rule-index.js';
import { compileCaptures, compilePattern, isCaseSensitive, type PatternTest } from './patterns.js';
import type { Match, MatchCaptures, NamedCondition, Pattern, RequestFacts } from './types.js';

/** A request prepared once for every rule it meets: lower-cased host and path, lazily parsed address. */
export class PreparedRequest {
  readonly host: string;
  readonly method: string;
  readonly country: string;
  private lowerPath: string | undefined;
  private parsedIp: ParsedIp | null | undefined;

  constructor(readonly facts: RequestFacts) {
    this.host = facts.host.toLowerCase();
    this.method = upperCase(facts.method);
    this.country = facts.country === undefined ? '' : upperCase(facts.country);
  }

  private head: number | undefined;
  private extension: string | undefined;

  get pathHead(): number {
    return (this.head ??= pathHead(this.facts.path));
  }

  get pathExtension(): string {
    return (this.extension ??= pathExtension(this.facts.path));
  }

  get pathLower(): string {
    return (this.lowerPath ??= this.facts.path.toLowerCase());
  }

  private network: number | undefined;

  /** The index key of the client's network (-1 without a valid address). */
  get networkKey(): number {
    if (this.network === undefined) this.network = this.ip ? networkKey(this.ip) : -1;
    return this.network;
  }

  get ip(): ParsedIp | null {
    if (this.parsedIp === undefined) this.parsedIp = (this.facts.ip && parseIp(this.facts.ip)) || null;
    return this.parsedIp;
  }
}

// `text` in upper case. String#toUpperCase is a call into V8's runtime (some 300 instructions),
// and a request's method and country almost always arrive in upper case already.
function upperCase(text: string): string {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if ((code >= 97 && code <= 122) || code > 127) return text.toUpperCase();
  }
  return text;
}

/** A compiled match: `test` decides; `captures` (only called on a hit) returns the groups for substitution. */
export type CompiledMatch = { test: (request: PreparedRequest) => boolean; captures: (request: PreparedRequest) => MatchCaptures };
type Check = (request: PreparedRequest) => boolean;

const EMPTY: MatchCaptures = Object.freeze([]);

type Named = Record<string, string | readonly string[]>;

// A repeated query parameter holds when any of its values does (`?debug=1&debug=0` has debug=1:
// origins differ on which value they read); negated, when none does.
function namedCheck(condition: NamedCondition, read: (request: PreparedRequest) => Named, caseSensitiveByDefault: boolean, lowerName: boolean): Check {
  const name = lowerName ? condition.name.toLowerCase() : condition.name;
  const sensitive = condition.pattern ? isCaseSensitive(condition.pattern, caseSensitiveByDefault) : true;
  const test = condition.pattern ? compilePattern(condition.pattern, sensitive) : undefined;
  const passes = (value: string): boolean => test!(sensitive ? value : value.toLowerCase());
  const holds = (request: PreparedRequest): boolean => {
    const named = read(request);
    const value = Object.hasOwn(named, name) ? named[name] : undefined;
    if (condition.present === false) return value === undefined;
    if (value === undefined) return false;
    if (!test) return true;
    return typeof value === 'string' ? passes(value) : value.some(passes);
  };
  return condition.negate ? (request) => !holds(request) : holds;
}

function setCheck(codes: string[] | undefined, inside: boolean): Check | undefined {
  if (!codes?.length) return undefined;
  const set = new Set(codes.map((code) => code.toUpperCase()));
  return (request) => set.has(request.country) === inside;
}

function ipCheck(cidrs: string[] | undefined, inside: boolean): Check | undefined {
  if (!cidrs?.length) return undefined;
  const inSet = compileIpSet(cidrs);
  return inside ? (request) => request.ip !== null && inSet(request.ip) : (request) => request.ip === null || !inSet(request.ip);
}

function scalarChecks(match: Match): Check[] {
  const checks: (Check | undefined)[] = [];
  if (match.methods?.length) {
    const methods = new Set(match.methods.map((method) => method.toUpperCase()));
    checks.push((request) => methods.has(request.method));
  }
  checks.push(setCheck(match.countries, true), setCheck(match.not_countries, false), ipCheck(match.ips, true), ipCheck(match.not_ips, false));
  for (const condition of match.query ?? []) checks.push(namedCheck(condition, (request) => request.facts.query, true, false));
  for (const condition of match.headers ?? []) checks.push(namedCheck(condition, (request) => request.facts.headers, false, true));
  for (const condition of match.cookies ?? []) checks.push(namedCheck(condition, (request) => request.facts.cookies, true, false));
  return checks.filter((check): check is Check => check !== undefined);
}

// Host names have no case: the request host is lower-cased once and patterns here.
function hostCheck(patterns: Pattern[]): Check {
  const tests = patterns.map((pattern) => compilePattern({ ...pattern, value: pattern.kind === 'regex' ? pattern.value : pattern.value.toLowerCase() }, pattern.kind !== 'regex'));
  return (request) => {
    for (const test of tests) if (test(request.host)) return true;
    return false;
  };
}

function pathCheck(patterns: Pattern[]): Check {
  const tests: [PatternTest, boolean][] = patterns.map((pattern) => {
    const sensitive = isCaseSensitive(pattern, true);
    return [compilePattern(pattern, sensitive), sensitive];
  });
  return (request) => {
    for (const [test, sensitive] of tests) if (test(sensitive ? request.facts.path : request.pathLower)) return true;
    return false;
  };
}

// Captures come from the first path pattern that matches, else the first host pattern.
function capturesOf(match: Match): (request: PreparedRequest) => MatchCaptures {
  const candidates = [
    ...(match.paths ?? []).map((pattern) => ({ groups: compileCaptures(pattern, isCaseSensitive(pattern, true)), read: (request: PreparedRequest) => request.facts.path })),
    ...(match.hosts ?? []).map((pattern) => ({ groups: compileCaptures(pattern, false), read: (request: PreparedRequest) => request.host })),
  ];
  if (!candidates.some((candidate) => candidate.groups)) return () => EMPTY;
  return (request) => {
    for (const candidate of candidates) {
      const found = candidate.groups?.(candidate.read(request));
      if (found) return found;
    }
    return EMPTY;
  };
}

/**
 * Compiles a match once (patterns to tests, CIDRs to ranges). Hosts are
 * always compared case-insensitively; paths, query values and cookies
 * case-sensitively unless a pattern says otherwise; header values case-insensitively.
 */
export function compileMatch(match: Match): CompiledMatch {
  const checks: Check[] = [];
  if (match.hosts?.length) checks.push(hostCheck(match.hosts));
  if (match.paths?.length) checks.push(pathCheck(match.paths));
  checks.push(...scalarChecks(match));
  const test = checks.length === 1 ? checks[0] : (request: PreparedRequest) => {
    for (const check of checks) if (!check(request)) return false;
    return true;
  };
  return { test, captures: capturesOf(match) };
}

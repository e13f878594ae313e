import type { IncomingHttpHeaders } from 'node:http';
import { allMatches, type RuleSet } from '../../shared/rules/rule-set.js';
import { compileSnapshotRules, type SnapshotRule } from '../../shared/snapshot.js';
import type { RequestContext } from '../pipeline/context.js';
import type { Phase } from '../pipeline/phase.js';
import type { ResponseHeaders } from '../pipeline/response.js';

type HeaderRule = SnapshotRule & { phase?: 'request' | 'response'; operation?: 'set' | 'add' | 'remove'; header_name: string; value?: string | null };
/** A header rule ready to apply: its header's name in lower case. */
type PreparedHeaderRule = HeaderRule & { lowerName: string };

/** A domain's header rules, compiled apart by the phase they apply in. */
export type HeaderRuleSets = { readonly request: RuleSet<PreparedHeaderRule>; readonly response: RuleSet<PreparedHeaderRule> };

// Connection-level and framing headers belong to one hop, not to the message: the
// API refuses rules on them; a rule that got through anyway is skipped, never applied.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authenticate', 'proxy-authorization', 'content-length', 'host']);

// Only visible ASCII and spaces (what the API accepts): a CR, LF or NUL would split or truncate
// a header, and Node refuses to send a character above U+00FF at all (defence in depth for a
// rule that reached the snapshot some other way).
const SENDABLE_VALUE = /^[\x20-\x7e]*$/;

type Headers = Record<string, string | string[] | undefined>;

function applicable(rule: HeaderRule): boolean {
  if (HOP_BY_HOP.has(rule.header_name.toLowerCase())) return false;
  return rule.operation === 'remove' || (typeof rule.value === 'string' && SENDABLE_VALUE.test(rule.value));
}

/** Compiles a domain's header rules once per snapshot: a rule that may not be applied is left out, the others filed under their phase. */
export function compileHeaderRules(rules: readonly SnapshotRule[]): HeaderRuleSets {
  const prepared = (rules as readonly HeaderRule[]).filter(applicable).map((rule): PreparedHeaderRule => ({ ...rule, lowerName: rule.header_name.toLowerCase() }));
  const inPhase = (phase: 'request' | 'response') => compileSnapshotRules(prepared.filter((rule) => (rule.phase ?? 'response') === phase));
  return { request: inPhase('request'), response: inPhase('response') };
}

// Request headers are one string each (Node joins repeats); a cookie list joins with "; ".
function addRequestValue(current: string | string[] | undefined, name: string, value: string): string {
  if (current === undefined) return value;
  const text = Array.isArray(current) ? current.join(', ') : current;
  return `${text}${name === 'cookie' ? '; ' : ', '}${value}`;
}

function addResponseValue(current: string | string[] | undefined, value: string): string | string[] {
  if (current === undefined) return value;
  return Array.isArray(current) ? [...current, value] : [current, value];
}

function apply(headers: Headers, rule: PreparedHeaderRule, add: (current: string | string[] | undefined, name: string, value: string) => string | string[]): void {
  const name = rule.lowerName;
  const operation = rule.operation ?? 'set';
  if (operation === 'remove') delete headers[name];
  else if (operation === 'set') headers[name] = rule.value as string;
  else headers[name] = add(headers[name], name, rule.value as string);
}

// The set is picked by the caller (a named property each), not looked up by a phase name.
function applyRules(ctx: RequestContext, set: RuleSet<PreparedHeaderRule> | undefined, headers: Headers, add: Parameters<typeof apply>[2]): void {
  if (!set || set.entries.length === 0 || !ctx.facts) return;
  for (const hit of allMatches(set, ctx.facts)) apply(headers, hit.rule, add);
}

/**
 * The request-header-rules phase (just before cache and origin): every matching
 * header rule of phase `request` sets, adds or removes a header of `ctx.headers`
 * in order, so the cache key (when it names that header) and the origin see the
 * rewritten request. Rules match the request as it arrived (`ctx.facts`). Never handles.
 */
export const requestHeaderRulesPhase: Phase = {
  name: 'request-header-rules',
  run(ctx) {
    applyRules(ctx, ctx.domain?.rules.headers.request, ctx.headers as IncomingHttpHeaders as Headers, addRequestValue);
    return false;
  },
};

/**
 * The header-rules response phase (after cache fill, before hygiene): every
 * matching header rule of phase `response` sets, adds or removes a header of
 * `ctx.response`, in order. Runs on every response, generated ones included.
 */
export const headerRulesPhase: Phase = {
  name: 'header-rules',
  run(ctx) {
    if (ctx.response) applyRules(ctx, ctx.domain?.rules.headers.response, ctx.response.headers as ResponseHeaders as Headers, (current, _name, value) => addResponseValue(current, value));
    return false;
  },
};

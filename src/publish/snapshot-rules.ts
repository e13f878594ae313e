import { normalizeCidr } from '../shared/rules/ip-set.js';
import { urlPatternMatch } from '../shared/rules/page-rules.js';
import { evaluationOrder } from '../shared/rules/rule-set.js';
import type { Match } from '../shared/rules/types.js';
import type { SnapshotRule, SnapshotRuleKind } from '../shared/snapshot.js';

/** A rule row as read for the snapshot (enabled rules of active domains). */
export type RuleRow = Record<string, unknown> & { id: string; domain_id: string; name: string; priority: number; match: Match };

// Stored columns an edge never reads.
const STORAGE_ONLY = new Set(['domain_id', 'enabled', 'legacy', 'created_at', 'updated_at']);

function isEmpty(match: Match): boolean {
  return Object.keys(match).length === 0;
}

/** A match without empty lists, with canonical CIDRs and upper-case countries and methods. */
export function compactMatch(match: Match): Match {
  const compact: Match = {};
  for (const [key, value] of Object.entries(match) as [keyof Match, unknown][]) {
    if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) continue;
    if (key === 'ips' || key === 'not_ips') compact[key] = (value as string[]).map((cidr) => normalizeCidr(cidr) ?? cidr);
    else if (key === 'countries' || key === 'not_countries' || key === 'methods') compact[key] = (value as string[]).map((code) => code.toUpperCase());
    else (compact as Record<string, unknown>)[key] = value;
  }
  return compact;
}

// An IP rule's CIDR joins the match's address list when it has none; otherwise it stays a separate AND.
function foldCidr(match: Match, cidr: string): { match: Match; also?: Match } {
  const ips = [normalizeCidr(cidr) ?? cidr];
  return match.ips ? { match, also: { ips } } : { match: { ...match, ips } };
}

// A page rule's URL pattern is its primary match (its wildcards give the captures); the rule's match must hold too.
function foldUrlPattern(match: Match, urlPattern: string): { match: Match; also?: Match } {
  return isEmpty(match) ? { match: urlPatternMatch(urlPattern) } : { match: urlPatternMatch(urlPattern), also: match };
}

function resolveDifficulty(rule: Record<string, unknown>, defaultDifficulty: number): void {
  if ('challenge_difficulty' in rule) rule.challenge_difficulty = rule.action === 'challenge' ? (rule.challenge_difficulty ?? defaultDifficulty) : null;
}

function compactRule(kind: SnapshotRuleKind, row: RuleRow, defaultDifficulty: number): SnapshotRule {
  const rule: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) if (!STORAGE_ONLY.has(key)) rule[key] = value;
  const match = compactMatch(row.match ?? {});
  const folded = kind === 'ip-rules' ? foldCidr(match, String(row.cidr)) : kind === 'page-rules' ? foldUrlPattern(match, String(row.url_pattern)) : { match };
  resolveDifficulty(rule, defaultDifficulty);
  return { ...(rule as SnapshotRule), match: folded.match, ...(folded.also ? { also: folded.also } : {}) };
}

/**
 * One kind's rules of one domain as an edge matches them: enabled only, in
 * evaluation order, storage columns dropped, the kind's own condition folded
 * into the match and the challenge difficulty resolved from the edge default.
 */
export function snapshotRules(kind: SnapshotRuleKind, rows: RuleRow[], defaultDifficulty: number): SnapshotRule[] {
  return rows.map((row) => compactRule(kind, row, defaultDifficulty)).sort(evaluationOrder);
}

// The config snapshot an edge pulls (schema: schemas/snapshot/config-snapshot.schema.json),
// shared by the core (builds it) and the edge (loads it). See docs/snapshots.md.
import { compileMatch } from './rules/compile.js';
import { compileRuleSet, type RuleBase, type RuleSet } from './rules/rule-set.js';
import type { Match } from './rules/types.js';

export const SNAPSHOT_SCHEMA_VERSION = 2;

/** The rule kinds of a snapshot, in the order an edge applies them to a request. */
export const SNAPSHOT_RULE_KINDS = ['ip-rules', 'waf-rules', 'rate-limits', 'redirects', 'page-rules', 'cache-rules', 'headers'] as const;
export type SnapshotRuleKind = (typeof SNAPSHOT_RULE_KINDS)[number];

/**
 * A rule as shipped: enabled, in evaluation order, its kind's own condition
 * (an IP rule's CIDR, a page rule's URL pattern) already folded into `match`.
 * When it could not be folded without changing meaning, `also` holds the
 * remaining condition, which must hold as well.
 */
export type SnapshotRule = RuleBase & { also?: Match } & Record<string, unknown>;

export type SnapshotOrigin = {
  id: string;
  host: string;
  scheme: string;
  port: number;
  role: 'primary' | 'backup';
  weight: number;
  host_header: string | null;
  health_status: string;
  health_check_path: string | null;
  timeouts: { connect_ms: number; read_ms: number };
  retries: { max: number; non_idempotent: boolean; budget_percent: number; budget_min_per_second: number };
  circuit_breaker: { failure_threshold: number; window_seconds: number; cooldown_seconds: number } | null;
  limits: { max_connections: number | null; max_pending_requests: number | null };
  shield: { region: string | null } | null;
};

export type SnapshotDomain = {
  id: string;
  domain: string;
  hostnames: string[];
  origin_shield: { header_name: string; secret: string | null } | null;
  origins: SnapshotOrigin[];
  cache: Record<string, unknown>;
  ssl: Record<string, unknown>;
  certificates: { id: string; hostnames: string[]; not_after: number | null; certificate_pem: string; chain_pem: string | null }[];
  rules: Record<SnapshotRuleKind, SnapshotRule[]>;
};

export type SnapshotPurge = { id: string; domain_id: string; scope: string; value: string | null; created_at: number };

export type ConfigSnapshot = {
  schema_version: number;
  edge: Record<string, unknown> & { challenge_difficulty: number };
  domains: SnapshotDomain[];
  purges: SnapshotPurge[];
};

/** Compiles one kind's snapshot rules for matching: `match` through the index, `also` as an extra check. */
export function compileSnapshotRules<R extends SnapshotRule>(rules: readonly R[]): RuleSet<R> {
  return compileRuleSet(rules, (rule) => (rule.also ? compileMatch(rule.also).test : undefined));
}

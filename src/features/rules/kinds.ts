import { ValidationError } from '../../http/errors.js';
import { normalizeCidr } from '../../shared/rules/ip-set.js';
import { urlPatternProblem } from '../../shared/rules/page-rules.js';
import { redirectTargetProblem } from '../../shared/rules/redirects.js';

/** A rule as stored: the shared fields plus the kind's own. */
export type RuleRecord = Record<string, unknown> & { id: string; domain_id: string; name: string; enabled: boolean; priority: number; match: unknown };

/** Everything the generic rule service needs to know about one kind. */
export type RuleKind = {
  /** URL segment: /api/v1/domains/{id}/<path>. */
  path: string;
  /** Prisma model delegate. */
  model: 'redirectRule' | 'rateLimitRule' | 'wafRule' | 'headerRule' | 'ipRule' | 'cacheRule' | 'pageRule';
  /** The model's table, for the SQL of multi-row creates. */
  table: string;
  /** Singular name used in audit actions and errors. */
  noun: string;
  /** Cross-field checks on the merged rule; may return normalised fields. */
  check: (rule: RuleRecord) => Record<string, unknown>;
};

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'proxy-connection', 'content-length', 'host']);

function checkDifficulty(rule: RuleRecord): void {
  if (rule.challenge_difficulty != null && rule.action !== 'challenge') {
    throw new ValidationError('challenge_difficulty', 'challenge_difficulty applies only to rules whose action is challenge');
  }
}

const noChange = () => ({});

export const RULE_KINDS: readonly RuleKind[] = [
  {
    path: 'redirects',
    model: 'redirectRule',
    table: 'redirect_rules',
    noun: 'redirect',
    check: (rule) => {
      const problem = redirectTargetProblem(String(rule.target));
      if (problem) throw new ValidationError('target', problem);
      return {};
    },
  },
  {
    path: 'rate-limits',
    model: 'rateLimitRule',
    table: 'rate_limit_rules',
    noun: 'rate_limit',
    check: (rule) => {
      if (rule.key === 'header' && !rule.key_header) throw new ValidationError('key_header', 'key_header is required when key is header');
      if (rule.key !== 'header' && rule.key_header) throw new ValidationError('key_header', 'key_header applies only when key is header');
      checkDifficulty(rule);
      return {};
    },
  },
  {
    path: 'waf-rules',
    model: 'wafRule',
    table: 'waf_rules',
    noun: 'waf_rule',
    check: (rule) => {
      checkDifficulty(rule);
      return {};
    },
  },
  {
    path: 'headers',
    model: 'headerRule',
    table: 'header_rules',
    noun: 'header_rule',
    check: (rule) => {
      const name = String(rule.header_name).toLowerCase();
      if (HOP_BY_HOP.has(name)) throw new ValidationError('header_name', `${name} is managed by the proxy and cannot be changed by a header rule`);
      if (rule.operation !== 'remove' && (rule.value === null || rule.value === undefined)) throw new ValidationError('value', `value is required for operation ${rule.operation}`);
      if (rule.operation === 'remove' && rule.value != null) throw new ValidationError('value', 'a remove rule takes no value');
      return { header_name: name };
    },
  },
  {
    path: 'ip-rules',
    model: 'ipRule',
    table: 'ip_rules',
    noun: 'ip_rule',
    check: (rule) => {
      const cidr = normalizeCidr(String(rule.cidr));
      if (!cidr) throw new ValidationError('cidr', `${JSON.stringify(rule.cidr)} is not an IP address or CIDR`);
      return { cidr };
    },
  },
  {
    path: 'cache-rules',
    model: 'cacheRule',
    table: 'cache_rules',
    noun: 'cache_rule',
    check: (rule) => {
      const query = (rule.cache_key as { query_strings?: { mode: string; names?: string[] } } | undefined)?.query_strings;
      if (query && (query.mode === 'include' || query.mode === 'exclude') && !query.names?.length) {
        throw new ValidationError('cache_key.query_strings.names', `names are required when mode is ${query.mode}`);
      }
      if (rule.action === 'bypass' && (rule.edge_ttl_seconds != null || rule.stale_while_revalidate_seconds != null)) {
        throw new ValidationError('action', 'a bypass rule takes no edge TTL or stale settings');
      }
      return noChange();
    },
  },
  {
    path: 'page-rules',
    model: 'pageRule',
    table: 'page_rules',
    noun: 'page_rule',
    check: (rule) => {
      const problem = urlPatternProblem(String(rule.url_pattern));
      if (problem) throw new ValidationError('url_pattern', problem);
      const settings = rule.settings as Record<string, unknown> & { forwarding_url?: { url: string } };
      if (settings.forwarding_url) {
        if (Object.keys(settings).length > 1) throw new ValidationError('settings.forwarding_url', 'forwarding_url cannot be combined with other settings');
        const target = redirectTargetProblem(settings.forwarding_url.url);
        if (target) throw new ValidationError('settings.forwarding_url.url', target);
      }
      return {};
    },
  },
];

/** The kind served under a URL segment. */
export function ruleKind(path: string): RuleKind {
  const kind = RULE_KINDS.find((candidate) => candidate.path === path);
  if (!kind) throw new Error(`unknown rule kind ${path}`);
  return kind;
}

import type { RuleSection } from './spec.js';

/** The API path segment of each rule section of a domain file. */
export const RULE_PATHS: Record<RuleSection, string> = {
  redirects: 'redirects',
  rate_limits: 'rate-limits',
  waf_rules: 'waf-rules',
  headers: 'headers',
  ip_rules: 'ip-rules',
  cache_rules: 'cache-rules',
  page_rules: 'page-rules',
};

/** The API create schema ($id) of each rule section. */
export const RULE_SCHEMA_IDS: Record<RuleSection, string> = {
  redirects: 'redirect-rule-create',
  rate_limits: 'rate-limit-rule-create',
  waf_rules: 'waf-rule-create',
  headers: 'header-rule-create',
  ip_rules: 'ip-rule-create',
  cache_rules: 'cache-rule-create',
  page_rules: 'page-rule-create',
};

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

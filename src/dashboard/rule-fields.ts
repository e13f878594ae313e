/** A value of the rule being edited, with the schema's default where it has none. */
export type Current = (path: string) => unknown;

/**
 * One field of a rule kind's form, at a dotted path of the rule's JSON. What input it gets (a
 * select for fixed values, a number, a checkbox, rows) and its bounds come from the kind's JSON
 * Schema; `when` shows it (and sends it) only while the rule's other values make it apply.
 */
export type RuleField = { path: string; when?: (current: Current) => boolean };

const challenging = (current: Current) => current('action') === 'challenge';
const caching = (current: Current) => current('action') !== 'bypass';
const forwarding = (current: Current) => Boolean(current('settings.forwarding_url.url'));

/** The fields of each rule kind (docs/rules.md, "Kinds") beside the shared name, state, priority and match. */
export const RULE_FIELDS: Record<string, RuleField[]> = {
  redirects: [{ path: 'target' }, { path: 'status_code' }, { path: 'preserve_query' }, { path: 'preserve_path' }],
  'rate-limits': [
    { path: 'requests' },
    { path: 'period_seconds' },
    { path: 'key' },
    { path: 'key_header', when: (current) => current('key') === 'header' },
    { path: 'action' },
    { path: 'block_seconds', when: (current) => current('action') === 'block' },
    { path: 'challenge_difficulty', when: challenging },
  ],
  'waf-rules': [{ path: 'action' }, { path: 'challenge_difficulty', when: challenging }, { path: 'signatures' }],
  headers: [{ path: 'phase' }, { path: 'operation' }, { path: 'header_name' }, { path: 'value', when: (current) => current('operation') !== 'remove' }],
  'ip-rules': [{ path: 'cidr' }, { path: 'action' }],
  'cache-rules': [
    { path: 'action' },
    { path: 'edge_ttl_seconds', when: caching },
    { path: 'browser_ttl_seconds' },
    { path: 'stale_while_revalidate_seconds', when: caching },
    { path: 'stale_if_error_seconds', when: caching },
    { path: 'cache_key.query_strings.mode' },
    { path: 'cache_key.query_strings.names', when: (current) => ['include', 'exclude'].includes(String(current('cache_key.query_strings.mode'))) },
    { path: 'cache_key.headers' },
    { path: 'cache_key.cookies' },
    { path: 'cache_key.country' },
    { path: 'cache_private', when: caching },
  ],
  'page-rules': [
    { path: 'url_pattern' },
    { path: 'settings.forwarding_url.url' },
    { path: 'settings.forwarding_url.status_code', when: forwarding },
    { path: 'settings.cache_level', when: (current) => !forwarding(current) },
    { path: 'settings.edge_cache_ttl_seconds', when: (current) => !forwarding(current) },
    { path: 'settings.browser_cache_ttl_seconds', when: (current) => !forwarding(current) },
    { path: 'settings.always_use_https', when: (current) => !forwarding(current) },
    { path: 'settings.security_level', when: (current) => !forwarding(current) },
    { path: 'settings.disable_features', when: (current) => !forwarding(current) },
  ],
};

/** The fields every kind shares, before the kind's own. */
export const SHARED_FIELDS: RuleField[] = [{ path: 'name' }, { path: 'enabled' }, { path: 'priority' }];

/** What a form shows for a field: its name in words (with the unit), one line of help, and for a list the word of one entry. */
export type FieldLabel = { label: string; help?: string; item?: string };

// Keys are the API's field names; a rule kind's own (`cache-rules.edge_ttl_seconds`), the fields
// every rule shares (`rule.priority`) and a settings group's (`dns.default_ttl`) are qualified.
const LABELS: Record<string, FieldLabel> = {
  // Every rule kind
  'rule.name': { label: 'Name', help: 'Unique among this domain’s rules of this kind; GitOps files name the rule by it.' },
  'rule.enabled': { label: 'Enabled', help: 'A disabled rule is kept but never applied.' },
  'rule.priority': { label: 'Priority', help: 'Lower numbers run first; rules of equal priority run by name.' },
  'match.hosts': { label: 'Hosts', help: 'The request’s host is any of these (never case-sensitive); none listed: every host.' },
  'match.paths': { label: 'Paths', help: 'The request’s path is any of these; none listed: every path.' },
  'match.methods': { label: 'Methods', help: 'None checked: every method.' },
  'match.countries': { label: 'Countries', help: 'Two-letter ISO codes of the client’s country (DE, FR); none listed: every country.' },
  'match.not_countries': { label: 'Not from countries', help: 'Clients from these countries never match.' },
  'match.ips': { label: 'Client IPs or CIDRs', help: 'IPv4 or IPv6 addresses or networks (192.0.2.0/24); none listed: every client.' },
  'match.not_ips': { label: 'Not from IPs or CIDRs', help: 'Clients in these networks never match.' },
  'match.headers': { label: 'Request headers', help: 'Every condition must hold; header names are not case-sensitive.' },
  'match.query': { label: 'Query parameters', help: 'Every condition must hold; a parameter sent twice holds when any of its values does.' },
  'match.cookies': { label: 'Cookies', help: 'Every condition must hold.' },
  // Redirects
  'redirects.target': { label: 'Target URL', help: 'An absolute http(s) URL or a path starting with /; $1…$9 take the match’s captures.' },
  'redirects.status_code': { label: 'Status code', help: '301 and 308 are permanent, 302 and 307 temporary; 307 and 308 keep the method and body.' },
  'redirects.preserve_query': { label: 'Keep the query string', help: 'Append the request’s query string to the target.' },
  'redirects.preserve_path': { label: 'Keep the path', help: 'Append the request’s path to the target (to move a whole site).' },
  // Rate limits
  'rate-limits.requests': { label: 'Requests allowed (per period)', help: 'How many requests one counter allows in each period.' },
  'rate-limits.period_seconds': { label: 'Period (seconds)', help: 'The length of the window requests are counted in.' },
  'rate-limits.key': { label: 'Count per', help: 'What one counter is kept for.' },
  'rate-limits.key_header': { label: 'Header to count by', help: 'Each value of this request header gets its own counter (X-Api-Key).' },
  'rate-limits.action': { label: 'Action', help: 'What happens to requests over the limit.' },
  'rate-limits.block_seconds': { label: 'Block duration (seconds)', help: 'How long a client over the limit stays blocked.' },
  challenge_difficulty: { label: 'Challenge difficulty (1–6)', help: 'Higher takes a browser longer to solve; empty uses the edge’s default.' },
  // WAF rules
  'waf-rules.action': { label: 'Action', help: 'What happens to a matching request.' },
  'waf-rules.signatures': { label: 'Managed signatures', help: 'When any is checked, the rule fires only on requests that also trip one of them.' },
  // Header rules
  'headers.phase': { label: 'Phase', help: 'Change the request sent to the origin, or the response sent to the visitor.' },
  'headers.operation': { label: 'Operation', help: 'Set replaces the header, add appends another one, remove deletes it.' },
  'headers.header_name': { label: 'Header name', help: 'Stored in lower case; hop-by-hop headers (connection, host, …) cannot be changed.' },
  'headers.value': { label: 'Header value', help: 'Visible ASCII and spaces; required to set or add.' },
  // IP rules
  'ip-rules.cidr': { label: 'IP address or CIDR', help: 'IPv4 or IPv6, one address or a network (192.0.2.0/24); stored as its network.' },
  'ip-rules.action': { label: 'Action', help: 'What happens to requests from these addresses.' },
  // Cache rules
  'cache-rules.action': { label: 'Action', help: 'Cache matching responses, or bypass the cache for them.' },
  'cache-rules.edge_ttl_seconds': { label: 'Edge cache TTL (seconds)', help: 'How long edges keep a response; empty keeps the domain’s settings or the origin’s headers.' },
  'cache-rules.browser_ttl_seconds': { label: 'Browser cache TTL (seconds)', help: 'The max-age sent to visitors; empty keeps the domain’s setting.' },
  'cache-rules.stale_while_revalidate_seconds': { label: 'Serve stale while revalidating (seconds)', help: 'How long an expired copy is served while a fresh one is fetched.' },
  'cache-rules.stale_if_error_seconds': { label: 'Serve stale on origin errors (seconds)', help: 'How long an expired copy is served when the origin fails.' },
  'cache-rules.cache_key.query_strings.mode': { label: 'Query string in the cache key', help: 'All of it, none, only the names listed, or all but them; not set keeps the domain’s mode.' },
  'cache-rules.cache_key.query_strings.names': { label: 'Query parameter names', help: 'The parameters included or excluded.', item: 'Parameter name' },
  'cache-rules.cache_key.headers': { label: 'Headers in the cache key', help: 'A copy is kept per value of each of these request headers.', item: 'Header' },
  'cache-rules.cache_key.cookies': { label: 'Cookies in the cache key', help: 'A copy is kept per value of each of these cookies.', item: 'Cookie' },
  'cache-rules.cache_key.country': { label: 'A copy per country', help: 'Keep a separate copy for each client country.' },
  'cache-rules.cache_private': { label: 'Cache private answers (dangerous)', help: 'Also stores answers marked private or sent to logged-in users, and serves them to everyone the rule matches.' },
  // Page rules
  'page-rules.url_pattern': { label: 'URL pattern', help: 'host/path with * wildcards and no scheme: *.example.com/images/*.' },
  'page-rules.settings.forwarding_url.url': { label: 'Forward to URL', help: 'Redirect matching requests here ($1… take the wildcards); leave empty to change settings instead.' },
  'page-rules.settings.forwarding_url.status_code': { label: 'Forwarding status code', help: '301 is permanent, 302 temporary.' },
  'page-rules.settings.cache_level': { label: 'Cache level', help: 'Not set keeps the domain’s caching.' },
  'page-rules.settings.edge_cache_ttl_seconds': { label: 'Edge cache TTL (seconds)', help: 'How long edges keep a response; empty keeps the domain’s settings.' },
  'page-rules.settings.browser_cache_ttl_seconds': { label: 'Browser cache TTL (seconds)', help: 'The max-age sent to visitors; empty keeps the domain’s setting.' },
  'page-rules.settings.always_use_https': { label: 'Always use HTTPS', help: 'Answer plain-HTTP requests with a redirect to HTTPS.' },
  'page-rules.settings.security_level': { label: 'Security level', help: 'Under attack challenges every visitor; not set keeps the platform’s level.' },
  'page-rules.settings.disable_features': { label: 'Turn off', help: 'Features switched off for matching requests.' },
  // SSL settings
  mode: { label: 'SSL mode', help: 'Off: HTTP only; flexible: HTTPS to visitors, HTTP to origins; full: HTTPS to origins, unchecked; strict: HTTPS to origins, verified.' },
  automatic: { label: 'Automatic certificates', help: 'Obtain and renew certificates for the apex and its wildcard (ACME).' },
  always_https: { label: 'Always use HTTPS', help: 'Redirect HTTP requests to HTTPS.' },
  min_tls_version: { label: 'Minimum TLS version', help: 'Older clients are refused.' },
  hsts_enabled: { label: 'HSTS', help: 'Tell browsers to use only HTTPS for this domain (Strict-Transport-Security).' },
  hsts_max_age: { label: 'HSTS max age (seconds)', help: 'How long browsers remember to use only HTTPS.' },
  // Cache settings
  caching_enabled: { label: 'Caching', help: 'Edges cache this domain’s responses.' },
  default_edge_ttl_seconds: { label: 'Default edge cache TTL (seconds)', help: 'For cacheable responses without Cache-Control or Expires.' },
  browser_ttl_seconds: { label: 'Browser cache TTL (seconds)', help: 'The max-age sent to visitors.' },
  respect_origin_cache_control: { label: 'Respect origin cache headers', help: 'Use the origin’s Cache-Control and Expires when present.' },
  query_string_mode: { label: 'Query string mode', help: 'Cache key: the query string as sent, with its parameters sorted, or ignored.' },
  stale_while_revalidate_seconds: { label: 'Serve stale while revalidating (seconds)', help: 'How long an expired copy is served while a fresh one is fetched.' },
  stale_if_error_seconds: { label: 'Serve stale on origin errors (seconds)', help: 'How long an expired copy is served when the origin fails.' },
  development_mode: { label: 'Development mode', help: 'Bypass the cache while debugging.' },
  targeted_cache_control_header: { label: 'Targeted cache-control header', help: 'An edge-only Cache-Control field (RFC 9213) ending in -Cache-Control; empty for none.' },
  strict_rfc9111: { label: 'Strict RFC 9111', help: 'Only the origin’s headers decide caching: no default TTL and no overrides.' },
  // Origins
  host: { label: 'Host', help: 'Hostname or IP address of the origin server.' },
  port: { label: 'Port', help: '1–65535; 443 for https and 80 for http when not set.' },
  role: { label: 'Role', help: 'Backups get traffic only when no primary is usable.' },
  weight: { label: 'Weight (1–1000)', help: 'The origin’s share of traffic among origins of its role.' },
  enabled: { label: 'Enabled', help: 'A disabled origin gets no traffic.' },
  drained: { label: 'Drained', help: 'Gets no traffic but stays configured (before maintenance).' },
  // Settings groups (their help is the setting's own description)
  'dns.default_ttl': { label: 'Default record TTL (seconds)' },
  'dns.proxied_hostname': { label: 'Shared proxy hostname' },
  'dns.soa_refresh': { label: 'SOA refresh (seconds)' },
  'dns.soa_retry': { label: 'SOA retry (seconds)' },
  'dns.soa_expire': { label: 'SOA expire (seconds)' },
  'dns.soa_minimum': { label: 'SOA minimum (seconds)' },
  'dns.soa_ttl': { label: 'SOA TTL (seconds)' },
  'nameservers.hostnames': { label: 'Nameserver hostnames' },
  'nameservers.ns_ttl': { label: 'NS record TTL (seconds)' },
  'edge.stale_config_warning_seconds': { label: 'Stale config warning after (seconds)' },
  'security.security_level': { label: 'Security level' },
  'security.managed_waf_default': { label: 'Managed WAF by default' },
  'security.block_status_code': { label: 'Block status code' },
  'cache.max_object_bytes': { label: 'Largest cached object (bytes)' },
  'analytics.default_bucket': { label: 'Default summary bucket' },
  'analytics.top_paths': { label: 'Top paths listed' },
  'anycast.anycast_ipv4': { label: 'Anycast IPv4 addresses' },
  'anycast.anycast_ipv6': { label: 'Anycast IPv6 addresses' },
};

// Words for fixed values whose API spelling is not a word, by field (or by value, for every field).
const CHOICES: Record<string, Record<string, string>> = {
  'rate-limits.key': { ip: 'client IP', ip_path: 'client IP and path', header: 'a request header' },
  'waf-rules.signatures': { sqli: 'SQL injection', xss: 'cross-site scripting', path_traversal: 'path traversal' },
  'page-rules.settings.disable_features': { waf: 'WAF', rate_limit: 'rate limiting', cache: 'caching', security_headers: 'security headers' },
  any: { under_attack: 'under attack', cache_everything: 'cache everything' },
};

const UNITS: [RegExp, string][] = [
  [/_seconds$/, ' (seconds)'],
  [/_ms$/, ' (milliseconds)'],
  [/_bytes$/, ' (bytes)'],
  [/_percent$/, ' (%)'],
];

// A key no entry names, as words with the unit its suffix gives.
function wordsOf(key: string): string {
  const last = key.slice(key.lastIndexOf('.') + 1);
  const [pattern, unit] = UNITS.find(([suffix]) => suffix.test(last)) ?? [/$/, ''];
  const words = last.replace(pattern, '').replace(/_/g, ' ');
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}${unit}`;
}

/** The label and help of the field at `key`, trying each key in turn (most qualified first); help falls back to `description`. */
export function labelOf(keys: string | string[], description?: string): FieldLabel {
  const candidates = [keys].flat();
  const found = candidates.map((key) => LABELS[key]).find(Boolean);
  return { label: found?.label ?? wordsOf(candidates[candidates.length - 1]), help: found?.help ?? description, item: found?.item };
}

/** A fixed value in words (`under_attack` as "under attack"), for the option of a select. */
export function choiceOf(key: string, value: string | number): string {
  const text = String(value);
  return CHOICES[key]?.[text] ?? CHOICES.any[text] ?? text;
}

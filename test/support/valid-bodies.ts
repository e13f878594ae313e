// One valid request body per JSON Schema of schemas/api that a route validates against, with
// every field the schema knows filled in: the bad-input sweep breaks them one field at a time,
// so each broken body is otherwise valid and its bad value gets as far as it can.

/** The records a sweep has created, which the bodies refer to. */
export type SweepFixtures = { domain: string; domainId: string; originId: string; purgeId: string; snapshotVersion: number; edgeId: string; admin: { username: string; password: string } };

const FULL_MATCH = {
  hosts: [{ kind: 'exact', value: 'sweep.example', case_sensitive: false }],
  paths: [{ kind: 'prefix', value: '/p/' }],
  methods: ['GET'],
  query: [{ name: 'q', present: true, pattern: { kind: 'exact', value: '1' }, negate: false }],
  headers: [{ name: 'x-sweep', pattern: { kind: 'wildcard', value: 'a*' } }],
  cookies: [{ name: 'c', present: true }],
  countries: ['DE'],
  not_countries: ['FR'],
  ips: ['192.0.2.0/24'],
  not_ips: ['198.51.100.1'],
};

const RULE_BASE = (name: string) => ({ name, enabled: true, priority: 10, match: FULL_MATCH });
const RATE_LIMIT = { requests: 10, period_seconds: 60, key: 'header', key_header: 'X-Key', action: 'block', block_seconds: 60, challenge_difficulty: null };

/** A valid body for every request schema id (a `-patch` schema takes the body of its `-create` or `-request` schema). */
export function validBodies(fixtures: SweepFixtures): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    'admin-login': fixtures.admin,
    'anycast-put': { anycast_ipv4: ['192.0.2.1'], anycast_ipv6: '2001:db8::1' },
    'cache-purge': { scope: 'url', value: `https://${fixtures.domain}/a.png` },
    'cache-rule-create': {
      ...RULE_BASE('sweep-cache-new'),
      action: 'cache',
      edge_ttl_seconds: 60,
      browser_ttl_seconds: 60,
      cache_key: { query_strings: { mode: 'include', names: ['v'] }, headers: ['X-Variant'], cookies: ['lang'], country: true },
      stale_while_revalidate_seconds: 1,
      stale_if_error_seconds: 1,
    },
    'cache-settings': { caching_enabled: true, default_edge_ttl_seconds: 60, browser_ttl_seconds: 60, respect_origin_cache_control: true, query_string_mode: 'sort', stale_while_revalidate_seconds: 0, stale_if_error_seconds: 0, development_mode: false },
    'collector-origin-health': {
      observations: [{ origin_id: fixtures.originId, source: 'probe', success: false, failure_kind: 'timeout', http_status: 504, latency_ms: 10, jitter_ms: 1, detail: 'timed out', timestamp: now }],
    },
    'collector-security-events': {
      idempotency_key: 'sweep-security',
      queue: 'security',
      events: [{ domain: fixtures.domain, kind: 'waf', action: 'block', rule_id: 'rule-1', method: 'GET', path: '/x', client_country: 'DE', client_ip: '192.0.2.9', user_agent: 'sweep', details: { signature: 'sqli' }, timestamp: now }],
    },
    'collector-usage': {
      idempotency_key: 'sweep-usage',
      events: [{ domain: fixtures.domain, path: '/', status: 200, bytes: 10, cache_status: 'HIT', timestamp: now, client_country: 'DE', client_ip: '192.0.2.44' }],
    },
    'dns-record-create': { type: 'A', name: 'api', content: '192.0.2.20', ttl: 300, proxied: false, routing_policy: 'simple', enabled: true, comment: 'sweep' },
    'domain-activate': { override: true },
    'batch-request': { operations: [{ ref: 'batch', method: 'POST', path: '/api/v1/domains', body: { domain: 'batch.example' } }, { method: 'POST', path: '/api/v1/domains/@{batch}/dns/records', body: { type: 'A', name: 'www', content: '192.0.2.9' } }] },
    'domain-create': { domain: 'other.example', name: 'other', display_name: 'Other', zone_name: 'other.example', origin_shield_header_name: 'X-Shield', origin_shield_secret: 'secret-value-1' },
    'domain-update': { name: 'sweep', display_name: 'Sweep', status: 'active', origin_shield_header_name: 'X-Shield', origin_shield_secret: 'secret-value-2' },
    'edge-heartbeat': {
      edge_id: fixtures.edgeId,
      hostname: 'edge-1',
      public_ip: '192.0.2.50',
      region: 'eu',
      country: 'DE',
      version: '1.0.0',
      healthy: true,
      config_version: fixtures.snapshotVersion,
      purge_acks: [fixtures.purgeId],
      purge_failures: [{ id: fixtures.purgeId, error: 'disk full' }],
    },
    'edge-register': { edge_id: fixtures.edgeId, hostname: 'edge-1', public_ip: '192.0.2.50', region: 'eu', country: 'DE', version: '1.0.0' },
    'geo-routes-put': { routes: [{ scope: 'country', code: 'DE', target: '192.0.2.1' }, { scope: 'default', code: null, target: '192.0.2.2' }] },
    'gitops-accept': { repo: 'https://git.example/sweep.git', commit_sha: 'a'.repeat(40), reason: 'intended' },
    'gitops-reconcile': { repo: 'https://git.example/sweep.git' },
    'gitops-run': {
      repo: 'https://git.example/sweep.git',
      branch: 'main',
      commit_sha: 'a'.repeat(40),
      trigger: 'manual',
      status: 'applied',
      started_at: now - 5,
      finished_at: now,
      counts: { creates: 1 },
      domains: [{ domain: fixtures.domain }],
      problems: [{ file: 'domains/sweep.yaml', message: 'fine' }],
      error: null,
      drift: [{ kind: 'origin' }],
    },
    'header-rule-create': { ...RULE_BASE('sweep-header-new'), phase: 'response', operation: 'set', header_name: 'X-Sweep', value: 'yes' },
    'ip-rule-create': { ...RULE_BASE('sweep-ip-new'), cidr: '192.0.2.0/24', action: 'block' },
    'legacy-rate-limit': { enabled: true, priority: 10, match: FULL_MATCH, ...RATE_LIMIT },
    'nameservers-force-verify': { reason: 'delegation cannot be observed from here' },
    'origin-request': {
      host: 'origin2.sweep.example',
      scheme: 'https',
      port: 443,
      role: 'backup',
      enabled: true,
      host_header: 'sweep.example',
      health_check_path: '/healthz',
      weight: 50,
      drained: false,
      monitored: true,
      max_retries: 1,
      retry_non_idempotent: false,
      retry_budget_percent: 20,
      retry_budget_min_per_second: 5,
      circuit_breaker_enabled: true,
      circuit_breaker_failure_threshold: 5,
      circuit_breaker_window_seconds: 30,
      circuit_breaker_cooldown_seconds: 30,
      max_connections: 100,
      max_pending_requests: 10,
      connect_timeout_ms: 3000,
      read_timeout_ms: 30000,
      shield: false,
      shield_region: 'eu',
    },
    'page-rule-create': {
      ...RULE_BASE('sweep-page-new'),
      url_pattern: `${fixtures.domain}/p/*`,
      settings: { cache_level: 'cache_everything', edge_cache_ttl_seconds: 60, browser_cache_ttl_seconds: 60, always_use_https: true, security_level: 'high', disable_features: ['waf'] },
    },
    'preview-routing': { country: 'DE', continent: 'EU', region: 'DE-BE' },
    'rate-limit-rule-create': { ...RULE_BASE('sweep-rate-new'), ...RATE_LIMIT },
    'redirect-import': { format: 'json', mode: 'append', csv: 'source,target\n/a,/b\n', rules: [{ name: 'imported', target: '/b', match: { paths: [{ kind: 'exact', value: '/a' }] } }] },
    'redirect-rule-create': { ...RULE_BASE('sweep-redirect-new'), target: '/new/$1', status_code: 301, preserve_query: true, preserve_path: false },
    'routing-settings': { routing_mode: 'geo', geo_health_port: 8080, anycast_ipv4: '192.0.2.1', anycast_ipv6: '2001:db8::1' },
    'rule-test': { url: `https://${fixtures.domain}/p/x?q=1`, method: 'GET', headers: { 'x-sweep': 'abc' }, cookies: { c: 'd' }, country: 'DE', ip: '192.0.2.1' },
    'settings-group-patch': { top_paths: 10, default_bucket: 'hour' },
    'settings-validate': { analytics: { top_paths: 10 }, dns: { default_ttl: 300 } },
    'snapshot-diff': { from_version: fixtures.snapshotVersion, to_version: fixtures.snapshotVersion },
    'ssl-check': { hostname: fixtures.domain },
    'ssl-manual-certificate': { certificate: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', private_key: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n', chain: '', hostnames: [fixtures.domain] },
    'ssl-certificate-request': { hostnames: [fixtures.domain], challenge: 'dns-01' },
    'ssl-settings-create': { mode: 'full', automatic: true, always_https: false, min_tls_version: '1.2', hsts_enabled: true, hsts_max_age: 100 },
    'usage-recalculate': { bucket: 'hour', domain_id: fixtures.domainId },
    'waf-rule-create': { ...RULE_BASE('sweep-waf-new'), action: 'challenge', challenge_difficulty: 2, signatures: ['sqli'] },
  };
}

/** The body for schema `id`: its own, or the create (or request) body of a derived patch schema. */
export function validBodyFor(bodies: Record<string, unknown>, id: string): unknown {
  return bodies[id] ?? bodies[id.replace(/-patch$/, '-create')] ?? bodies[id.replace(/-patch$/, '-request')];
}

// Every settings group's keys with their types, defaults, bounds and meanings: plain data, so the
// browser dashboard draws its forms (selects for fixed values, bounds) from the same definitions
// the API checks values against (src/features/settings/registry.ts).

/** One typed setting: its kind, default, bounds and meaning. */
export type SettingDefinition =
  | { type: 'integer'; default: number; min: number; max: number; description: string }
  | { type: 'boolean'; default: boolean; description: string }
  | { type: 'enum'; default: string; values: readonly string[]; description: string }
  | { type: 'hostname'; default: string; description: string }
  | { type: 'hostnames' | 'ipv4_list' | 'ipv6_list' | 'labels'; default: string[]; description: string };

const int = (value: number, min: number, max: number, description: string): SettingDefinition => ({ type: 'integer', default: value, min, max, description });
const DAY = 86400;

/** Every settings group and its keys. Values live in the `settings` table; an absent row means the default. */
export const SETTINGS = {
  dns: {
    default_ttl: int(300, 60, 86400, 'TTL of records that do not set one.'),
    proxied_hostname: { type: 'hostname', default: 'edge.cdn.localhost', description: 'Shared proxy hostname whose A/AAAA records point at the edge pool; proxied records resolve through it.' },
    soa_refresh: int(7200, 60, 30 * DAY, 'SOA refresh of published zones.'),
    soa_retry: int(3600, 60, 30 * DAY, 'SOA retry.'),
    soa_expire: int(1209600, 3600, 365 * DAY, 'SOA expire.'),
    soa_minimum: int(60, 0, DAY, 'SOA minimum (negative-caching TTL).'),
    soa_ttl: int(60, 0, DAY, 'TTL of the SOA record.'),
  },
  nameservers: {
    hostnames: { type: 'hostnames', default: [], description: 'Platform nameservers new domains must delegate to; empty uses CDN_DEFAULT_NAMESERVERS.' },
    ns_ttl: int(86400, 60, 7 * DAY, 'TTL of the platform NS records in published zones.'),
  },
  edge: {
    stale_config_warning_seconds: int(300, 10, DAY, 'Edges report a stale-config warning when their snapshot is older than this while the core has a newer one.'),
  },
  security: {
    security_level: { type: 'enum', default: 'medium', values: ['off', 'low', 'medium', 'high', 'under_attack'], description: 'Default security level of domains without a page rule saying otherwise.' },
    managed_waf_default: { type: 'boolean', default: false, description: 'Apply the managed WAF signatures to domains without WAF rules.' },
    block_status_code: int(403, 400, 599, 'Status of responses blocked by WAF, IP or rate-limit rules.'),
  },
  cache: {
    max_object_bytes: int(104857600, 1024, 2 ** 31 - 1, 'Largest response the edge stores in its cache.'),
  },
  analytics: {
    default_bucket: { type: 'enum', default: 'hour', values: ['minute', 'hour', 'day'], description: 'Bucket of summaries when the request does not name one.' },
    top_paths: int(10, 1, 100, 'How many paths the summaries list.'),
  },
  anycast: {
    anycast_ipv4: { type: 'ipv4_list', default: [], description: 'Platform anycast IPv4 addresses; when set, the shared proxy hostname publishes plain A records with all of them.' },
    anycast_ipv6: { type: 'ipv6_list', default: [], description: 'Platform anycast IPv6 addresses (AAAA), as above.' },
  },
  // Canary rollout with automatic rollback (docs/rollout.md); off by default: every edge gets the newest version.
  rollout: {
    enabled: { type: 'boolean', default: false, description: 'Send each new config version to canary edges first, and to the fleet only once it has baked without raising the error ratio.' },
    canary_labels: { type: 'labels', default: [], description: 'Edges reporting any of these labels (CDN_EDGE_LABELS) are canaries.' },
    canary_percent: int(0, 0, 100, 'Also this share of the pool (rounded up, chosen by a stable hash of the edge id) is canary.'),
    bake_seconds: int(300, 10, DAY, 'How long a canary version serves before it may be promoted to the fleet.'),
    max_error_margin_percent: int(1, 0, 100, "Percentage points the canaries' 5xx ratio may exceed the fleet's on the previous version before the version fails."),
    min_canary_requests: int(100, 1, 1000000, 'Requests the canaries must have served on the version before it is judged (promoted or failed).'),
  },
} as const satisfies Record<string, Record<string, SettingDefinition>>;

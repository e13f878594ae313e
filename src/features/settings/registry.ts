import { isIPv4, isIPv6 } from 'node:net';
import { normalizeApex } from '../../shared/hostnames.js';

// Platform hostnames must be fully qualified (two labels or more, a real TLD): the apex rule.
const normalizeFqdn = normalizeApex;

/** One typed setting: its kind, default, bounds and meaning. */
export type SettingDefinition =
  | { type: 'integer'; default: number; min: number; max: number; description: string }
  | { type: 'boolean'; default: boolean; description: string }
  | { type: 'enum'; default: string; values: readonly string[]; description: string }
  | { type: 'hostname'; default: string; description: string }
  | { type: 'hostnames' | 'ipv4_list' | 'ipv6_list'; default: string[]; description: string };

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
} as const satisfies Record<string, Record<string, SettingDefinition>>;

export type SettingsGroup = keyof typeof SETTINGS;
export const GROUPS = Object.keys(SETTINGS) as SettingsGroup[];

function listItems(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return value.split(/[\s,]+/).filter(Boolean);
  return undefined;
}

/** Checks and normalises one value; returns it, or a problem text. Lists accept arrays or comma/space/new-line separated strings. */
export function coerceSetting(definition: SettingDefinition, value: unknown): { value: unknown } | { problem: string } {
  switch (definition.type) {
    case 'integer':
      return Number.isInteger(value) && (value as number) >= definition.min && (value as number) <= definition.max
        ? { value }
        : { problem: `must be an integer from ${definition.min} to ${definition.max}` };
    case 'boolean':
      return typeof value === 'boolean' ? { value } : { problem: 'must be true or false' };
    case 'enum':
      return definition.values.includes(value as string) ? { value } : { problem: `must be one of ${definition.values.join(', ')}` };
    case 'hostname': {
      const host = typeof value === 'string' ? normalizeFqdn(value) : undefined;
      return host ? { value: host } : { problem: 'must be a hostname' };
    }
    default: {
      const items = listItems(value);
      if (!items) return { problem: 'must be a list (array, or a string separated by commas, spaces or new lines)' };
      const check = definition.type === 'ipv4_list' ? (item: unknown) => typeof item === 'string' && isIPv4(item) : definition.type === 'ipv6_list' ? (item: unknown) => typeof item === 'string' && isIPv6(item) : (item: unknown) => typeof item === 'string' && normalizeFqdn(item) !== undefined;
      const bad = items.find((item) => !check(item));
      if (bad !== undefined) return { problem: `${JSON.stringify(bad)} is not ${definition.type === 'hostnames' ? 'a hostname' : `an IPv${definition.type === 'ipv4_list' ? 4 : 6} address`}` };
      const normal = items.map((item) => (definition.type === 'hostnames' ? normalizeFqdn(item as string)! : (item as string).toLowerCase()));
      return { value: [...new Set(normal)] };
    }
  }
}

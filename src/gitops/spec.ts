// The desired-state model as loaded from YAML (after schema defaults). Field names follow the API.

export type RecordSpec = { type: string; name: string; content: string; ttl: number; proxied: boolean; routing_policy: string; enabled: boolean; comment?: string | null };
export type GeoRouteSetSpec = { record: string; type?: string; routes: { scope: string; code?: string | null; target: string }[] };
export type OriginSpec = Record<string, unknown> & { host: string; scheme: 'http' | 'https'; port?: number };
export type RuleSpec = Record<string, unknown> & { name: string };

export const RULE_SECTIONS = ['redirects', 'rate_limits', 'waf_rules', 'headers', 'ip_rules', 'cache_rules', 'page_rules'] as const;
export type RuleSection = (typeof RULE_SECTIONS)[number];

export type DomainSpec = {
  domain: string;
  name?: string;
  display_name?: string | null;
  zone_name?: string;
  origin_shield?: { header_name?: string | null; secret?: string };
  policy: { prune: boolean; self_heal: boolean };
  routing?: { routing_mode: string; geo_health_port?: number | null; anycast_ipv4?: string[]; anycast_ipv6?: string[] };
  records?: RecordSpec[];
  geo_routes?: GeoRouteSetSpec[];
  origins?: OriginSpec[];
  cache?: Record<string, unknown>;
  ssl?: Record<string, unknown>;
} & Partial<Record<RuleSection, RuleSpec[]>>;

export type RepositorySpec = { delete_removed_domains: boolean; max_delete_percent: number; min_live_items: number; owned_domains?: string[] };

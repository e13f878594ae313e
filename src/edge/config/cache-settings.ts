/** A domain's cache settings (schemas/api/cache-settings.json), with the defaults filled in. */
export type CacheSettings = {
  caching_enabled: boolean;
  default_edge_ttl_seconds: number;
  browser_ttl_seconds: number;
  respect_origin_cache_control: boolean;
  query_string_mode: 'include' | 'sort' | 'ignore';
  stale_while_revalidate_seconds: number;
  stale_if_error_seconds: number;
  development_mode: boolean;
  /** An edge-specific targeted cache-control field (lower case) honoured before CDN-Cache-Control (RFC 9213); null: CDN-Cache-Control only. */
  targeted_cache_control_header: string | null;
  /** Only the origin's headers decide caching (docs/edge-cache.md, "Strict RFC 9111 mode"). */
  strict_rfc9111: boolean;
};

const DEFAULTS: CacheSettings = {
  caching_enabled: true,
  default_edge_ttl_seconds: 3600,
  browser_ttl_seconds: 14400,
  respect_origin_cache_control: true,
  query_string_mode: 'include',
  stale_while_revalidate_seconds: 0,
  stale_if_error_seconds: 0,
  development_mode: false,
  targeted_cache_control_header: null,
  strict_rfc9111: false,
};

/** The snapshot's cache settings object over the defaults (the snapshot normally carries every field); the targeted field name in lower case, as Node names response headers. */
export function cacheSettings(raw: Record<string, unknown>): CacheSettings {
  const settings = { ...DEFAULTS, ...(raw as Partial<CacheSettings>) };
  if (settings.targeted_cache_control_header) settings.targeted_cache_control_header = settings.targeted_cache_control_header.toLowerCase();
  return settings;
}

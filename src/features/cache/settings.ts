import type { Db } from '../../db/client.js';
import { unixSeconds } from '../../http/timestamps.js';
import { assertDomainExists } from '../domains/service.js';

export type CacheSettingsInput = {
  caching_enabled: boolean;
  default_edge_ttl_seconds: number;
  browser_ttl_seconds: number;
  respect_origin_cache_control: boolean;
  query_string_mode: string;
  stale_while_revalidate_seconds: number;
  stale_if_error_seconds: number;
  development_mode: boolean;
  targeted_cache_control_header: string | null;
  strict_rfc9111: boolean;
};

type CacheSettingsRow = CacheSettingsInput & { domain_id: string; updated_at: Date };

function serialize(row: CacheSettingsRow, customised: boolean) {
  return { ...row, updated_at: customised ? unixSeconds(row.updated_at) : null, customised };
}

/** The API shape of a domain's cache settings: its row, or `defaults` (customised: false) when it has none. */
export function cacheSettingsOf(row: CacheSettingsRow | null, domainId: string, defaults: CacheSettingsInput) {
  return row ? serialize(row, true) : serialize({ ...defaults, domain_id: domainId, updated_at: new Date(0) }, false);
}

/** The domain's cache settings; a domain that never set them gets `defaults` (customised: false). */
export async function getCacheSettings(db: Db, domainId: string, defaults: CacheSettingsInput) {
  await assertDomainExists(db, domainId);
  return cacheSettingsOf(await db.cacheSettings.findUnique({ where: { domain_id: domainId } }), domainId, defaults);
}

/** Replaces the domain's cache settings (the request was completed with defaults by validation). */
export async function putCacheSettings(db: Db, domainId: string, input: CacheSettingsInput) {
  await assertDomainExists(db, domainId);
  const row = await db.cacheSettings.upsert({ where: { domain_id: domainId }, create: { ...input, domain_id: domainId }, update: input });
  return serialize(row, true);
}

import type { ApiClient } from './api-client.js';
import { withSortedSets } from './canonical.js';
import { canonicalOrigin, canonicalRouting, emptyRules, geoKey, originKey, recordKey, sortRoutes, type DomainModel, type Item } from './model.js';
import { RULE_PATHS } from './rule-paths.js';
import { RULE_SECTIONS } from './spec.js';

export type LiveDomain = DomainModel & { id: string; ids: Map<string, string> };

export type Exported = { domain: Item; routing: Item; cache: Item; ssl: Item; records: Item[]; geo_routes: { record_id: string; routes: Item[] }[]; origins: Item[]; rules: Record<string, Item[]> };

/**
 * One exported domain in the planner's model. `ids` maps each item's model key
 * (section + identity) to its live id, for apply.
 */
export function liveDomainOf(exported: Exported): LiveDomain {
  const { domain } = exported;
  const zone = String(domain.zone_name);
  const ids = new Map<string, string>();
  const records = new Map<string, Item>();
  const recordsById = new Map<string, Item>();
  for (const record of exported.records) {
    const key = recordKey(record as never, zone);
    records.set(key, record);
    recordsById.set(String(record.id), record);
    ids.set(`record ${key}`, String(record.id));
  }
  const geoRoutes = new Map<string, Item>();
  for (const set of exported.geo_routes) {
    const record = recordsById.get(set.record_id)!;
    const key = geoKey(String(record.type), String(record.name));
    geoRoutes.set(key, { routes: sortRoutes(set.routes) });
    ids.set(`geo ${key}`, set.record_id);
  }
  const origins = new Map<string, Item>();
  for (const origin of exported.origins) {
    origins.set(originKey(origin), canonicalOrigin(origin));
    ids.set(`origin ${originKey(origin)}`, String(origin.id));
  }
  const rules = emptyRules();
  for (const section of RULE_SECTIONS) {
    for (const rule of exported.rules[RULE_PATHS[section]] ?? []) {
      if (rule.legacy) continue;
      rules[section].set(String(rule.name), withSortedSets(rule) as Item);
      ids.set(`${section} ${rule.name}`, String(rule.id));
    }
  }
  const fields: Item = { ...domain, origin_shield_secret: domain.origin_shield_secret_set ? '(set)' : undefined };
  return { apex: String(domain.domain), id: String(domain.id), ids, fields, routing: canonicalRouting(exported.routing), cache: withSortedSets(exported.cache) as Item, ssl: exported.ssl, records, geoRoutes, origins, rules };
}

/** The live state of the domains named in `apexes` (others are read but dropped), through the bulk export. */
export async function loadLiveDomains(client: ApiClient, apexes: Set<string>): Promise<Map<string, LiveDomain>> {
  const exported = await client.list<Exported>('/api/v1/export/domains');
  return new Map(exported.filter((item) => apexes.has(String(item.domain.domain))).map((item) => [String(item.domain.domain), liveDomainOf(item)]));
}

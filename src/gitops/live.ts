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

// The export's `domains` filter takes at most 100 apexes; the URL is also kept short (core's 16 KiB header limit).
const NAMES_PER_REQUEST = 100;
const QUERY_CHARS_PER_REQUEST = 6000;

/** `apexes` cut into the `domains` filters of consecutive export requests, each within the API's bounds. */
export function exportFilters(apexes: Iterable<string>): string[] {
  const filters: string[] = [];
  let names: string[] = [];
  let chars = 0;
  for (const apex of [...apexes].sort()) {
    const encoded = encodeURIComponent(apex);
    if (names.length && (names.length === NAMES_PER_REQUEST || chars + encoded.length + 1 > QUERY_CHARS_PER_REQUEST)) {
      filters.push(names.join(','));
      names = [];
      chars = 0;
    }
    names.push(encoded);
    chars += encoded.length + 1;
  }
  if (names.length) filters.push(names.join(','));
  return filters;
}

/** The live state of the domains named in `apexes` (and only those: other domains are never read), through the bulk export. */
export async function loadLiveDomains(client: ApiClient, apexes: Set<string>): Promise<Map<string, LiveDomain>> {
  const live = new Map<string, LiveDomain>();
  for (const filter of exportFilters(apexes)) {
    for (const item of await client.list<Exported>(`/api/v1/export/domains?domains=${filter}`)) {
      const apex = String(item.domain.domain);
      if (apexes.has(apex)) live.set(apex, liveDomainOf(item));
    }
  }
  return live;
}

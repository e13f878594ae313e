import type { ApiClient } from './api-client.js';
import { emptyRules, geoKey, originKey, recordKey, sortRoutes, type DomainModel, type Item } from './model.js';
import { RULE_PATHS } from './rule-paths.js';
import { RULE_SECTIONS } from './spec.js';


export type LiveDomain = DomainModel & { id: string; ids: Map<string, string> };

/** Every live domain, keyed by apex. */
export async function liveDomains(client: ApiClient): Promise<Map<string, Item>> {
  const domains = await client.list('/api/v1/domains');
  return new Map(domains.map((domain) => [String(domain.domain), domain]));
}

/**
 * Reads one live domain through the API into the planner's model. `ids` maps
 * each item's model key (section + identity) to its live id, for apply.
 */
export async function loadLiveDomain(client: ApiClient, domain: Item): Promise<LiveDomain> {
  const id = String(domain.id);
  const base = `/api/v1/domains/${id}`;
  const zone = String(domain.zone_name);
  const ids = new Map<string, string>();
  const [records, origins, routing, cache, ...ruleLists] = await Promise.all([
    client.list(`${base}/dns/records`),
    client.list(`${base}/origins`),
    client.request('GET', `${base}/routing`),
    client.request('GET', `${base}/cache/settings`),
    ...RULE_SECTIONS.map((section) => client.list(`${base}/${RULE_PATHS[section]}`)),
  ]);
  const recordMap = new Map<string, Item>();
  for (const record of records) {
    const key = recordKey(record, zone);
    recordMap.set(key, record);
    ids.set(`record ${key}`, record.id);
  }
  const geoRoutes = new Map<string, Item>();
  for (const record of records.filter((candidate: Item) => candidate.routing_policy === 'geo')) {
    const routes = (await client.request('GET', `${base}/dns/records/${record.id}/geo-routes`)).data;
    const key = geoKey(record.type, record.name);
    geoRoutes.set(key, { routes: sortRoutes(routes) });
    ids.set(`geo ${key}`, record.id);
  }
  const originMap = new Map<string, Item>();
  for (const origin of origins) {
    originMap.set(originKey(origin), origin);
    ids.set(`origin ${originKey(origin)}`, origin.id);
  }
  const rules = emptyRules();
  RULE_SECTIONS.forEach((section, index) => {
    for (const rule of ruleLists[index]) {
      if (rule.legacy) continue;
      rules[section].set(String(rule.name), rule);
      ids.set(`${section} ${rule.name}`, rule.id);
    }
  });
  const fields: Item = { ...domain, origin_shield_secret: domain.origin_shield_secret_set ? '(set)' : undefined };
  return { apex: String(domain.domain), id, ids, fields, routing: routing.data, cache: cache.data, records: recordMap, geoRoutes, origins: originMap, rules };
}

import type { Db } from '../../db/client.js';
import type { Paging } from '../../http/paging.js';
import { unixSeconds } from '../../http/timestamps.js';
import { cacheSettingsOf, type CacheSettingsInput } from '../cache/settings.js';
import { serializeRecord } from '../dns/service.js';
import { groupByDomain } from '../domains/group-by-domain.js';
import { serializeDomain } from '../domains/serialize.js';
import { serializeOrigin } from '../origins/service.js';
import { routingOf } from '../routing/service.js';
import { RULE_KINDS, type RuleRecord } from '../rules/kinds.js';
import { serializeRule } from '../rules/service.js';
import { anycastAddresses } from '../settings/anycast.js';
import { sslSettingsOf, type SslSettingsInput } from '../ssl/settings.js';

type RuleDelegate = { findMany: (args: object) => Promise<RuleRecord[]> };

/**
 * A page of domains with everything the API shows about each (the same shapes
 * as the per-resource endpoints): records, geo routes, origins, every rule kind,
 * routing, cache settings and SSL preferences. One query per table for the whole page, so a
 * reconciler reads hundreds of domains in a few requests; `names` keeps only those apexes.
 */
export async function exportDomains(db: Db, paging: Paging, names: string[] | undefined, cacheDefaults: CacheSettingsInput, sslDefaults: Required<SslSettingsInput>) {
  const domains = await db.domain.findMany({
    where: names ? { domain: { in: names } } : undefined,
    orderBy: [{ created_at: 'asc' }, { id: 'asc' }],
    skip: paging.offset,
    take: paging.limit,
    include: { nameservers: { select: { kind: true, hostname: true } }, cache_settings: true, ssl_settings: true },
  });
  const ids = domains.map((domain) => domain.id);
  const inPage = { domain_id: { in: ids } };
  const [records, origins, platform, ...ruleRows] = await Promise.all([
    db.dnsRecord.findMany({ where: inPage, orderBy: [{ name: 'asc' }, { type: 'asc' }, { created_at: 'asc' }], include: { geo_routes: { orderBy: { position: 'asc' } } } }),
    db.origin.findMany({ where: inPage, orderBy: [{ role: 'asc' }, { created_at: 'asc' }] }),
    anycastAddresses(db),
    ...RULE_KINDS.map((kind) => (db as unknown as Record<string, RuleDelegate>)[kind.model].findMany({ where: inPage, orderBy: [{ priority: 'asc' }, { name: 'asc' }, { id: 'asc' }] })),
  ]);
  const recordsBy = groupByDomain(records);
  const originsBy = groupByDomain(origins);
  const rulesBy = ruleRows.map((rows) => groupByDomain(rows));
  return domains.map((domain) => {
    const domainRecords = recordsBy.get(domain.id) ?? [];
    return {
      domain: serializeDomain(domain),
      routing: routingOf(domain, platform),
      cache: cacheSettingsOf(domain.cache_settings, domain.id, cacheDefaults),
      ssl: sslSettingsOf(domain.ssl_settings, domain.id, sslDefaults),
      records: domainRecords.map((record) => serializeRecord(record, domain.zone_name)),
      geo_routes: domainRecords
        .filter((record) => record.geo_routes.length > 0)
        .map((record) => ({ record_id: record.id, routes: record.geo_routes.map((route) => ({ id: route.id, scope: route.scope, code: route.code, target: route.target, position: route.position, created_at: unixSeconds(route.created_at) })) })),
      origins: (originsBy.get(domain.id) ?? []).map(serializeOrigin),
      rules: Object.fromEntries(RULE_KINDS.map((kind, index) => [kind.path, (rulesBy[index].get(domain.id) ?? []).map(serializeRule)])),
    };
  });
}

// Reads what every zone is built from: the domains (status, routing), their
// expected nameservers and records, the dns and nameservers settings, and the
// edge addresses proxied names answer (docs/dns-publishing.md).
import type { Config } from '../../config/load.js';
import type { Db } from '../../db/client.js';
import { groupByDomain } from '../../features/domains/group-by-domain.js';
import { proxiedAddresses } from '../../features/edges/service.js';
import { groupValues } from '../../features/settings/store.js';
import { challengeRecords } from '../../features/ssl/acme/challenge-records.js';
import type { ProxiedAddresses, SoaSettings, ZoneRecord, ZoneSource } from './desired-zone.js';

/** A zone source with the domain it belongs to; `conflict` names the domain that already publishes the same zone. */
export type DomainZone = ZoneSource & { domainId: string; domain: string; conflict?: string };

type DomainRow = { id: string; domain: string; zone_name: string; status: ZoneSource['status']; routing_mode: 'geo' | 'anycast' | 'dns_only'; anycast_ipv4: string | null; anycast_ipv6: string | null };

const list = (stored: string | null) => (stored ? stored.split(',') : []);

function proxiedFor(domain: DomainRow, platform: ProxiedAddresses, anycast: { ipv4: string[]; ipv6: string[] }): ZoneSource['proxied'] {
  if (domain.routing_mode === 'dns_only') return null;
  if (domain.routing_mode === 'geo') return platform;
  const ipv4 = list(domain.anycast_ipv4);
  const ipv6 = list(domain.anycast_ipv6);
  return { ipv4: ipv4.length ? ipv4 : anycast.ipv4, ipv6: ipv6.length ? ipv6 : anycast.ipv6 };
}

/** Every domain's zone source, oldest domain first. */
export async function loadZoneSources(db: Db, config: Config, now = new Date()): Promise<DomainZone[]> {
  const domains = (await db.domain.findMany({
    orderBy: [{ created_at: 'asc' }, { id: 'asc' }],
    select: { id: true, domain: true, zone_name: true, status: true, routing_mode: true, anycast_ipv4: true, anycast_ipv6: true },
  })) as DomainRow[];
  const ids = domains.map((domain) => domain.id);
  const [nameservers, records, dns, nsSettings, edges, challenges] = await Promise.all([
    db.domainNameserver.findMany({ where: { domain_id: { in: ids }, kind: 'expected' }, orderBy: { hostname: 'asc' }, select: { domain_id: true, hostname: true } }),
    db.dnsRecord.findMany({
      where: { domain_id: { in: ids } },
      select: { domain_id: true, name: true, type: true, content: true, ttl: true, proxied: true, enabled: true, routing_policy: true, geo_routes: { orderBy: { position: 'asc' }, select: { scope: true, code: true, target: true } } },
    }),
    groupValues(db, 'dns'),
    groupValues(db, 'nameservers'),
    proxiedAddresses(db, config.edgeHeartbeatFreshSeconds, now),
    // ACME DNS-01 challenges in flight: their TXT records are published beside the domain's own.
    db.acmeChallenge.findMany({ where: { domain_id: { in: ids }, type: 'dns-01', expires_at: { gt: now } }, orderBy: { token: 'asc' }, select: { domain_id: true, hostname: true, key_authorization: true } }),
  ]);
  const soa: SoaSettings = { refresh: dns.soa_refresh as number, retry: dns.soa_retry as number, expire: dns.soa_expire as number, minimum: dns.soa_minimum as number, ttl: dns.soa_ttl as number };
  // Platform anycast addresses bypass answers by location (SPEC.md, anycast settings).
  const fromEdges = edges.ipv4.source === 'edges' && edges.ipv6.source === 'edges';
  const platform: ProxiedAddresses = { ipv4: edges.ipv4.addresses, ipv6: edges.ipv6.addresses, ...(fromEdges ? { byCountry: edges.byCountry } : {}) };
  // What an anycast-routed domain without addresses of its own falls back to, per family.
  const platformAnycast = { ipv4: edges.ipv4.source === 'anycast' ? edges.ipv4.addresses : [], ipv6: edges.ipv6.source === 'anycast' ? edges.ipv6.addresses : [] };
  const claimed = new Map<string, string>();
  const recordsOf = groupByDomain(records);
  const nameserversOf = groupByDomain(nameservers);
  const challengesOf = groupByDomain(challenges);
  return domains.map((domain) => {
    const zoneRecords: ZoneRecord[] = (recordsOf.get(domain.id) ?? []).map((record) => ({ name: record.name, type: record.type, content: record.content, ttl: record.ttl, proxied: record.proxied, enabled: record.enabled, ...(record.routing_policy === 'geo' && record.geo_routes.length ? { geoRoutes: record.geo_routes } : {}) }));
    zoneRecords.push(...challengeRecords(challengesOf.get(domain.id) ?? [], domain.zone_name));
    const owner = claimed.get(domain.zone_name);
    if (!owner) claimed.set(domain.zone_name, domain.domain);
    return {
      domainId: domain.id,
      domain: domain.domain,
      zone: domain.zone_name,
      status: domain.status,
      nameservers: (nameserversOf.get(domain.id) ?? []).map((row) => row.hostname),
      records: zoneRecords,
      proxied: proxiedFor(domain, platform, platformAnycast),
      soa,
      nsTtl: nsSettings.ns_ttl as number,
      ...(owner ? { conflict: owner } : {}),
    };
  });
}

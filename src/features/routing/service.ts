import type { Db } from '../../db/client.js';
import { ValidationError } from '../../http/errors.js';
import { anycastAddresses } from '../settings/anycast.js';
import { findDomain } from '../domains/service.js';
import { parseAddressList } from './anycast.js';

export type RoutingUpdate = { routing_mode: 'geo' | 'anycast' | 'dns_only'; geo_health_port?: number | null; anycast_ipv4?: string | null; anycast_ipv6?: string | null };

function splitStored(value: string | null): string[] {
  return value ? value.split(',') : [];
}

type RoutingRow = { id: string; routing_mode: string; geo_health_port: number | null; anycast_ipv4: string | null; anycast_ipv6: string | null };

/** The routing shape of a domain row, given the platform anycast addresses. */
export function routingOf(domain: RoutingRow, platform: { ipv4: string[]; ipv6: string[] }) {
  return {
    domain_id: domain.id,
    routing_mode: domain.routing_mode,
    geo_health_port: domain.geo_health_port,
    anycast_ipv4: splitStored(domain.anycast_ipv4),
    anycast_ipv6: splitStored(domain.anycast_ipv6),
    platform_anycast_ipv4: platform.ipv4,
    platform_anycast_ipv6: platform.ipv6,
  };
}

/** The domain's routing settings; anycast addresses as lists, plus the platform-wide ones they fall back to. */
export async function getRouting(db: Db, domainId: string) {
  return routingOf(await findDomain(db, domainId), await anycastAddresses(db));
}

function storedList(value: string | null | undefined, family: 4 | 6, field: string): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  const list = parseAddressList(value, family, field);
  return list.length ? list.join(',') : null;
}

/**
 * Updates routing. Anycast mode needs at least one anycast address, on the
 * domain or platform-wide (settings group `anycast`); 422 on anycast_ipv4 otherwise.
 */
export async function updateRouting(db: Db, domainId: string, update: RoutingUpdate) {
  const current = await findDomain(db, domainId);
  const anycastIpv4 = storedList(update.anycast_ipv4, 4, 'anycast_ipv4');
  const anycastIpv6 = storedList(update.anycast_ipv6, 6, 'anycast_ipv6');
  if (update.routing_mode === 'anycast') {
    const platform = await anycastAddresses(db);
    const v4 = anycastIpv4 === undefined ? current.anycast_ipv4 : anycastIpv4;
    const v6 = anycastIpv6 === undefined ? current.anycast_ipv6 : anycastIpv6;
    if (!v4 && !v6 && platform.ipv4.length === 0 && platform.ipv6.length === 0) {
      throw new ValidationError('anycast_ipv4', 'anycast routing needs an anycast address: set anycast_ipv4/anycast_ipv6 here or in the anycast settings');
    }
  }
  await db.domain.update({
    where: { id: domainId },
    data: { routing_mode: update.routing_mode, geo_health_port: update.geo_health_port, anycast_ipv4: anycastIpv4, anycast_ipv6: anycastIpv6 },
  });
  return getRouting(db, domainId);
}

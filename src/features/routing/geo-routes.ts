import { isIPv4, isIPv6 } from 'node:net';
import type { Db } from '../../db/client.js';
import { NotFoundError, ValidationError } from '../../http/errors.js';
import { unixSeconds } from '../../http/timestamps.js';
import { continentOf, isContinent, isCountry, isRegion } from '../../shared/geo/regions.js';
import { normalizeHostname } from '../../shared/hostnames.js';
import { lockZoneWrites } from '../dns/service.js';
import { assertDomainExists } from '../domains/service.js';

export type GeoRouteInput = { scope: 'country' | 'continent' | 'region' | 'default'; code?: string | null; target: string };
type GeoRouteRow = { id: string; scope: string; code: string | null; target: string; position: number; created_at: Date };

const CODE_CHECKS: Record<string, [(code: string) => boolean, string]> = {
  country: [isCountry, 'an ISO 3166-1 alpha-2 country code such as DE'],
  continent: [isContinent, 'one of the continent codes AF, AN, AS, EU, NA, OC, SA'],
  region: [isRegion, 'an ISO 3166-2 subdivision code such as US-CA'],
};

function serializeRoute(row: GeoRouteRow) {
  return { id: row.id, scope: row.scope, code: row.code, target: row.target, position: row.position, created_at: unixSeconds(row.created_at) };
}

async function findGeoRecord(db: Db, domainId: string, recordId: string) {
  await assertDomainExists(db, domainId);
  const record = await db.dnsRecord.findFirst({ where: { id: recordId, domain_id: domainId } });
  if (!record) throw new NotFoundError('dns record', recordId);
  return record;
}

function checkTarget(type: string, target: string, field: string): string {
  if (type === 'A' && isIPv4(target)) return target;
  if (type === 'AAAA' && isIPv6(target)) return target.toLowerCase();
  const host = type === 'CNAME' ? normalizeHostname(target) : undefined;
  if (host) return host;
  throw new ValidationError(field, `a geo route of a ${type} record needs ${type === 'A' ? 'an IPv4 address' : type === 'AAAA' ? 'an IPv6 address' : 'a hostname'}`);
}

function checkRoute(route: GeoRouteInput, index: number, type: string): GeoRouteInput {
  const field = `routes.${index}`;
  if (route.scope === 'default') {
    if (route.code) throw new ValidationError(`${field}.code`, 'the default route takes no code');
    return { scope: 'default', code: null, target: checkTarget(type, route.target, `${field}.target`) };
  }
  const code = (route.code ?? '').toUpperCase();
  const [valid, expected] = CODE_CHECKS[route.scope];
  if (!valid(code)) throw new ValidationError(`${field}.code`, `${JSON.stringify(route.code ?? null)} is not ${expected}`);
  return { scope: route.scope, code, target: checkTarget(type, route.target, `${field}.target`) };
}

function checkRouteSet(routes: GeoRouteInput[]): void {
  if (routes.length === 0) return;
  const defaults = routes.filter((route) => route.scope === 'default').length;
  if (defaults !== 1) throw new ValidationError('routes', `a geo route set needs exactly one default route (found ${defaults})`);
  const keys = routes.map((route) => `${route.scope}:${route.code}`);
  const twin = keys.findIndex((key, index) => keys.indexOf(key) !== index);
  if (twin !== -1) throw new ValidationError(`routes.${twin}.code`, `${routes[twin].scope} ${routes[twin].code} is listed twice`);
}

/** A route set for a record of `type`, checked and canonical: valid codes and targets, exactly one default, no twins (422 otherwise). */
export function checkGeoRouteSet(type: string, routes: GeoRouteInput[]): GeoRouteInput[] {
  const checked = routes.map((route, index) => checkRoute(route, index, type));
  checkRouteSet(checked);
  return checked;
}

/** The record's geo routes in their stored order. */
export async function listGeoRoutes(db: Db, domainId: string, recordId: string) {
  await findGeoRecord(db, domainId, recordId);
  const rows = await db.geoRoute.findMany({ where: { record_id: recordId }, orderBy: { position: 'asc' } });
  return rows.map(serializeRoute);
}

/**
 * Replaces the record's geo routes. Only A, AAAA and CNAME records route by
 * geography; a non-empty set needs exactly one default and turns the record's
 * routing_policy to geo, an empty set turns it back to simple.
 */
export async function replaceGeoRoutes(db: Db, domainId: string, recordId: string, routes: GeoRouteInput[]) {
  // Concurrent replacements would each delete the old set and both insert theirs.
  await lockZoneWrites(db, domainId);
  const record = await findGeoRecord(db, domainId, recordId);
  if (!['A', 'AAAA', 'CNAME'].includes(record.type)) throw new ValidationError('routes', `${record.type} records cannot have geo routes`);
  const checked = checkGeoRouteSet(record.type, routes);
  await db.geoRoute.deleteMany({ where: { record_id: recordId } });
  await db.geoRoute.createMany({ data: checked.map((route, position) => ({ ...route, record_id: recordId, position })) });
  await db.dnsRecord.update({ where: { id: recordId }, data: { routing_policy: checked.length ? 'geo' : 'simple' } });
  return listGeoRoutes(db, domainId, recordId);
}

export type Resolver = { country?: string; continent?: string; region?: string };

/** The answer a resolver in the given place would get: region, then country, then continent, then default, then the record itself. */
export async function previewRouting(db: Db, domainId: string, recordId: string, resolver: Resolver) {
  const record = await findGeoRecord(db, domainId, recordId);
  const routes = await db.geoRoute.findMany({ where: { record_id: recordId }, orderBy: { position: 'asc' } });
  const country = resolver.country ?? (resolver.region ? resolver.region.slice(0, 2) : undefined);
  const continent = resolver.continent ?? (country ? continentOf(country) : undefined);
  const wanted: [string, string | undefined][] = [['region', resolver.region], ['country', country], ['continent', continent], ['default', undefined]];
  for (const [scope, code] of wanted) {
    if (scope !== 'default' && !code) continue;
    const route = routes.find((candidate) => candidate.scope === scope && (scope === 'default' || candidate.code === code));
    if (route) return { record_id: record.id, policy: record.routing_policy, resolver: { country, continent, region: resolver.region }, matched: { scope, code: route.code }, answer: route.target };
  }
  return { record_id: record.id, policy: record.routing_policy, resolver: { country, continent, region: resolver.region }, matched: null, answer: record.content };
}

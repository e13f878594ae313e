// PowerDNS LUA record contents that answer per client location (the resolver's
// address, or the EDNS Client Subnet it sends): region, then country, then
// continent, then the default, as POST /preview-routing decides (docs/control-plane.md).
// PowerDNS finds the location with its geoip backend (docs/dns-publishing.md, "Geo").
// Only validated values are written into the Lua text, and each is checked again here.
import { continentOf } from '../../shared/geo/regions.js';

export type GeoRoute = { scope: 'country' | 'continent' | 'region' | 'default'; code: string | null; target: string };

const PRECEDENCE = { region: 0, country: 1, continent: 2, default: 3 } as const;
const CODE = /^[A-Z]{2}$/;
const REGION = /^([A-Z]{2})-([A-Z0-9]{1,3})$/;
// An address or a hostname: nothing that could end a Lua string or the record's quotes.
const TARGET = /^[A-Za-z0-9.:_-]+$/;

function condition(scope: GeoRoute['scope'], code: string): string | undefined {
  if (scope === 'country' && CODE.test(code)) return `country('${code}')`;
  if (scope === 'continent' && CODE.test(code)) return `continent('${code}')`;
  const region = REGION.exec(code);
  if (scope === 'region' && region) return `(country('${region[1]}') and region('${region[2]}'))`;
  return undefined;
}

function answer(type: string, targets: string[]): string | undefined {
  if (targets.length === 0 || !targets.every((target) => TARGET.test(target))) return undefined;
  return type === 'CNAME' ? `'${targets[0]}'` : `{${targets.map((target) => `'${target}'`).join(',')}}`;
}

function luaContent(type: string, branches: { when: string; then: string }[], otherwise: string): string {
  const body = branches.map((branch) => `if ${branch.when} then return ${branch.then} end`).join(' ');
  return `${type} ";${body}${body ? ' ' : ''}return ${otherwise}"`;
}

/**
 * The LUA content of a geo-routed record: its routes in precedence order, the
 * default route last. Undefined when the routes have no usable default.
 */
export function geoRecordLua(type: 'A' | 'AAAA' | 'CNAME', routes: GeoRoute[]): string | undefined {
  const ordered = routes.map((route, index) => ({ route, index })).sort((a, b) => PRECEDENCE[a.route.scope] - PRECEDENCE[b.route.scope] || a.index - b.index);
  const fallback = ordered.find(({ route }) => route.scope === 'default');
  const otherwise = fallback && answer(type, [fallback.route.target]);
  if (!otherwise) return undefined;
  const branches = ordered.flatMap(({ route }) => {
    const when = route.scope === 'default' || !route.code ? undefined : condition(route.scope, route.code);
    const then = answer(type, [route.target]);
    return when && then ? [{ when, then }] : [];
  });
  return luaContent(type, branches, otherwise);
}

/**
 * The LUA content of a proxied name in geo routing: the pool's edges in the
 * client's country, else on its continent, else every edge of the pool.
 */
export function poolLua(type: 'A' | 'AAAA', byCountry: Record<string, string[]>, all: string[]): string | undefined {
  const otherwise = answer(type, [...all].sort());
  if (!otherwise) return undefined;
  const countries = Object.keys(byCountry).filter((country) => CODE.test(country) && byCountry[country].length > 0).sort();
  const byContinent = new Map<string, string[]>();
  for (const country of countries) {
    const continent = continentOf(country);
    if (continent) byContinent.set(continent, [...(byContinent.get(continent) ?? []), ...byCountry[country]]);
  }
  const branches = [
    ...countries.map((country) => ({ when: `country('${country}')`, then: answer(type, [...byCountry[country]].sort()) })),
    ...[...byContinent.keys()].sort().map((continent) => ({ when: `continent('${continent}')`, then: answer(type, [...byContinent.get(continent)!].sort()) })),
  ].filter((branch): branch is { when: string; then: string } => branch.then !== undefined);
  return luaContent(type, branches, otherwise);
}

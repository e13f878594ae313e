import { checkRecordContent } from '../features/dns/record-content.js';
import { relativeRecordName } from '../features/dns/record-name.js';
import { ruleKind, type RuleRecord } from '../features/rules/kinds.js';
import { canonicalAddress, canonicalHost, withSortedSets } from './canonical.js';
import { RULE_PATHS } from './rule-paths.js';
import { nullableRuleFields } from './schemas.js';
import { RULE_SECTIONS, type DomainSpec, type RuleSection } from './spec.js';

export type Item = Record<string, unknown>;

/**
 * One domain as the planner sees it, built the same way from YAML and from the
 * API: every list keyed by its stable identity.
 */
export type DomainModel = {
  apex: string;
  fields: Item;
  routing?: Item;
  cache?: Item;
  ssl?: Item;
  records: Map<string, Item>;
  geoRoutes: Map<string, Item>;
  origins: Map<string, Item>;
  rules: Record<RuleSection, Map<string, Item>>;
};

/** The port an origin uses when it names none. */
export const DEFAULT_PORT: Record<string, number> = { http: 80, https: 443 };

/** The identity of a record: type, relative name and canonical content. */
export function recordKey(record: { type: string; name: string; content: string }, zone: string): string {
  const content = checkRecordContent(record.type, record.content);
  return `${record.type} ${relativeRecordName(record.name, zone) ?? record.name} ${content.ok ? content.content : record.content}`;
}

/** The identity of an origin: scheme://host:port. */
export function originKey(origin: Item): string {
  const scheme = String(origin.scheme ?? 'https');
  return `${scheme}://${canonicalHost(String(origin.host))}:${origin.port ?? DEFAULT_PORT[scheme]}`;
}

/** The identity of a geo route set: the type and relative name of its record. */
export function geoKey(type: string, name: string): string {
  return `${type} ${name}`;
}

export function emptyRules(): Record<RuleSection, Map<string, Item>> {
  return Object.fromEntries(RULE_SECTIONS.map((section) => [section, new Map()])) as Record<RuleSection, Map<string, Item>>;
}

function canonicalRecord(record: Item, zone: string): Item {
  const content = checkRecordContent(String(record.type), String(record.content));
  return { ...record, name: relativeRecordName(String(record.name), zone) ?? record.name, content: content.ok ? content.content : record.content };
}

/** Geo routes in one order, codes upper case and targets spelled canonically. */
export function sortRoutes(routes: Item[]): Item[] {
  return routes
    .map((route) => ({ scope: route.scope, code: route.code ? String(route.code).toUpperCase() : null, target: canonicalHost(String(route.target)) }))
    .sort((a, b) => `${a.scope} ${a.code}`.localeCompare(`${b.scope} ${b.code}`));
}

// The API normalises some rule fields (header names to lower case, CIDRs to networks); so does the
// plan. Nullable fields the file leaves out are null, so removing one from YAML clears it live.
function canonicalRule(section: (typeof RULE_SECTIONS)[number], rule: Item): Item {
  const cleared = Object.fromEntries(nullableRuleFields()[section].map((field) => [field, null]));
  const withMatch = { match: {}, ...cleared, ...rule };
  try {
    return withSortedSets({ ...withMatch, ...ruleKind(RULE_PATHS[section]).check(withMatch as RuleRecord) }) as Item;
  } catch {
    return withSortedSets(withMatch) as Item;
  }
}

/** Routing with its anycast address lists canonical and sorted (they are sets). */
export function canonicalRouting(routing: Item | undefined): Item | undefined {
  if (!routing) return routing;
  const out: Item = { ...routing };
  for (const family of ['anycast_ipv4', 'anycast_ipv6']) {
    if (Array.isArray(out[family])) out[family] = [...new Set((out[family] as string[]).map(canonicalAddress))].sort();
  }
  return out;
}

/** An origin with its host spelled canonically and its port filled in from the scheme. */
export function canonicalOrigin(origin: Item): Item {
  const scheme = String(origin.scheme ?? 'https');
  return { ...origin, host: canonicalHost(String(origin.host)), port: origin.port ?? DEFAULT_PORT[scheme] };
}

/** The desired model of a domain file (secrets still as ${VAR} references). */
export function desiredModel(spec: DomainSpec): DomainModel {
  const zone = spec.zone_name ?? spec.domain;
  const fields: Item = { name: spec.name ?? spec.domain, zone_name: zone.toLowerCase() };
  if (spec.display_name !== undefined) fields.display_name = spec.display_name;
  if (spec.origin_shield?.header_name !== undefined) fields.origin_shield_header_name = spec.origin_shield.header_name;
  if (spec.origin_shield?.secret !== undefined) fields.origin_shield_secret = spec.origin_shield.secret;
  const records = new Map((spec.records ?? []).map((record) => [recordKey(record, zone), canonicalRecord(record, zone)]));
  const geoRoutes = new Map(
    (spec.geo_routes ?? []).map((set) => {
      const name = relativeRecordName(set.record, zone) ?? set.record;
      const type = set.type ?? [...records.values()].find((record) => record.name === name && ['A', 'AAAA', 'CNAME'].includes(String(record.type)))?.type;
      return [geoKey(String(type), name), { routes: sortRoutes(set.routes) }];
    }),
  );
  for (const key of geoRoutes.keys()) {
    for (const record of records.values()) if (geoKey(String(record.type), String(record.name)) === key) record.routing_policy = 'geo';
  }
  const origins = new Map(
    (spec.origins ?? []).map((origin) => [originKey(origin), canonicalOrigin(origin)]),
  );
  const rules = emptyRules();
  for (const section of RULE_SECTIONS) for (const rule of spec[section] ?? []) rules[section].set(rule.name, canonicalRule(section, rule));
  return { apex: spec.domain, fields, routing: canonicalRouting(spec.routing), cache: withSortedSets(spec.cache) as Item | undefined, ssl: spec.ssl, records, geoRoutes, origins, rules };
}

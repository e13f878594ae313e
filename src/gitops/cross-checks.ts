import { checkRecordContent } from '../features/dns/record-content.js';
import { relativeRecordName } from '../features/dns/record-name.js';
import { checkCandidate } from '../features/dns/service.js';
import { normalizeInput } from '../features/origins/service.js';
import { parseAddressList } from '../features/routing/anycast.js';
import { checkGeoRouteSet, type GeoRouteInput } from '../features/routing/geo-routes.js';
import { ruleKind, type RuleRecord } from '../features/rules/kinds.js';
import { ValidationError } from '../http/errors.js';
import { RULE_PATHS } from './rule-paths.js';
import { matchProblems } from '../shared/rules/match-problems.js';
import type { Match } from '../shared/rules/types.js';
import type { Problem } from './problems.js';
import { RULE_SECTIONS, type DomainSpec } from './spec.js';
import type { YamlFile } from './yaml-file.js';

const DEFAULT_PORT = { http: 80, https: 443 } as const;
const GEO_TYPES = new Set(['A', 'AAAA', 'CNAME']);

function recordProblems(spec: DomainSpec, file: YamlFile): Problem[] {
  const zone = spec.zone_name ?? spec.domain;
  const problems: Problem[] = [];
  const identities = new Map<string, number>();
  const typesByName = new Map<string, { types: Set<string>; cname?: number }>();
  (spec.records ?? []).forEach((record, index) => {
    const name = relativeRecordName(record.name, zone);
    if (!name) {
      problems.push(file.problemAt(['records', index, 'name'], `${JSON.stringify(record.name)} is not a valid name inside ${zone}`));
      return;
    }
    const content = checkRecordContent(record.type, record.content);
    if (!content.ok) problems.push(file.problemAt(['records', index, 'content'], content.reason));
    const identity = `${record.type} ${name} ${content.ok ? content.content : record.content}`;
    const twin = identities.get(identity);
    if (twin !== undefined) problems.push(file.problemAt(['records', index], `duplicate record: ${record.type} ${name} ${record.content} is also records[${twin}]`));
    identities.set(identity, index);
    const entry = typesByName.get(name) ?? { types: new Set<string>() };
    entry.types.add(record.type);
    if (record.type === 'CNAME') entry.cname = index;
    typesByName.set(name, entry);
  });
  for (const [name, entry] of typesByName) {
    if (entry.cname !== undefined && entry.types.size > 1) {
      problems.push(file.problemAt(['records', entry.cname], `a CNAME cannot share the name ${name} with other records (${[...entry.types].filter((type) => type !== 'CNAME').join(', ')})`));
    }
  }
  return problems;
}

function geoRouteProblems(spec: DomainSpec, file: YamlFile): Problem[] {
  const zone = spec.zone_name ?? spec.domain;
  const records = (spec.records ?? []).map((record) => ({ name: relativeRecordName(record.name, zone), type: record.type }));
  const seen = new Set<string>();
  return (spec.geo_routes ?? []).flatMap((set, index): Problem[] => {
    const name = relativeRecordName(set.record, zone);
    const candidates = records.filter((record) => record.name === name && GEO_TYPES.has(record.type) && (!set.type || record.type === set.type));
    if (candidates.length === 0) return [file.problemAt(['geo_routes', index, 'record'], `geo routes name the record ${JSON.stringify(set.record)}${set.type ? ` (${set.type})` : ''}, which is not an A, AAAA or CNAME record of this file`)];
    if (candidates.length > 1) return [file.problemAt(['geo_routes', index, 'record'], `${set.record} has several A/AAAA/CNAME records; add type to say which`)];
    const key = `${name} ${candidates[0].type}`;
    if (seen.has(key)) return [file.problemAt(['geo_routes', index], `the geo routes of ${set.record} ${candidates[0].type} are given twice`)];
    seen.add(key);
    return [];
  });
}

function originProblems(spec: DomainSpec, file: YamlFile): Problem[] {
  const seen = new Map<string, number>();
  return (spec.origins ?? []).flatMap((origin, index): Problem[] => {
    const identity = `${origin.scheme}://${origin.host.toLowerCase()}:${origin.port ?? DEFAULT_PORT[origin.scheme]}`;
    const twin = seen.get(identity);
    seen.set(identity, index);
    return twin === undefined ? [] : [file.problemAt(['origins', index], `two origins with the same identity ${identity} (origins[${twin}] and origins[${index}])`)];
  });
}

function ruleProblems(spec: DomainSpec, file: YamlFile): Problem[] {
  return RULE_SECTIONS.flatMap((section) => {
    const names = new Map<string, number>();
    return (spec[section] ?? []).flatMap((rule, index): Problem[] => {
      const problems = matchProblems((rule.match ?? {}) as Match, 'match').map((problem) =>
        file.problemAt([section, index, ...problem.field.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part))], problem.detail),
      );
      const twin = names.get(rule.name);
      if (twin !== undefined) problems.push(file.problemAt([section, index, 'name'], `${section}[${twin}] already has the name ${JSON.stringify(rule.name)}`));
      names.set(rule.name, index);
      return problems;
    });
  });
}

/** Segments of an API error field (`routes.0.code`) as a path in the file. */
function fieldPath(field: string | undefined): (string | number)[] {
  return field ? field.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part)) : [];
}

/** The API's own write-time check of one item, as a problem at `path` (plus the field it names) when it refuses. */
function apiCheck(file: YamlFile, path: (string | number)[], check: () => unknown): Problem[] {
  try {
    check();
    return [];
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return [file.problemAt([...path, ...fieldPath(error.field)], error.detail ?? error.message)];
  }
}

// The checks the API runs on each item when it is written, run here so that a plan never sends
// what the API would refuse: record type rules, geo route sets, origin hosts, rule fields, addresses.
function apiProblems(spec: DomainSpec, file: YamlFile): Problem[] {
  const zone = spec.zone_name ?? spec.domain;
  const records = (spec.records ?? []).flatMap((record, index) => (relativeRecordName(record.name, zone) && checkRecordContent(record.type, record.content).ok ? apiCheck(file, ['records', index], () => checkCandidate({ comment: null, ...record }, zone)) : []));
  const geo = (spec.geo_routes ?? []).flatMap((set, index) => {
    const name = relativeRecordName(set.record, zone);
    const record = (spec.records ?? []).find((candidate) => relativeRecordName(candidate.name, zone) === name && GEO_TYPES.has(candidate.type) && (!set.type || candidate.type === set.type));
    return record ? apiCheck(file, ['geo_routes', index], () => checkGeoRouteSet(record.type, set.routes as GeoRouteInput[])) : [];
  });
  const origins = (spec.origins ?? []).flatMap((origin, index) => apiCheck(file, ['origins', index], () => normalizeInput(origin as never)));
  const rules = RULE_SECTIONS.flatMap((section) => (spec[section] ?? []).flatMap((rule, index) => apiCheck(file, [section, index], () => ruleKind(RULE_PATHS[section]).check({ match: {}, ...rule } as RuleRecord))));
  const routing = (['anycast_ipv4', 'anycast_ipv6'] as const).flatMap((family) =>
    spec.routing?.[family] ? apiCheck(file, ['routing'], () => parseAddressList(spec.routing![family]!, family === 'anycast_ipv4' ? 4 : 6, family)) : [],
  );
  return [...records, ...geo, ...origins, ...rules, ...routing];
}

/** Everything wrong across the items of one domain file that its schema cannot see. */
export function crossCheckDomain(spec: DomainSpec, file: YamlFile): Problem[] {
  return [...recordProblems(spec, file), ...geoRouteProblems(spec, file), ...originProblems(spec, file), ...ruleProblems(spec, file), ...apiProblems(spec, file)];
}

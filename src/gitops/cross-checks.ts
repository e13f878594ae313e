import { checkRecordContent } from '../features/dns/record-content.js';
import { relativeRecordName } from '../features/dns/record-name.js';
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

/** Everything wrong across the items of one domain file that its schema cannot see. */
export function crossCheckDomain(spec: DomainSpec, file: YamlFile): Problem[] {
  return [...recordProblems(spec, file), ...geoRouteProblems(spec, file), ...originProblems(spec, file), ...ruleProblems(spec, file)];
}

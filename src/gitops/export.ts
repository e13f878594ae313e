import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { Document, isMap, isScalar, isSeq, visit, type YAMLMap } from 'yaml';
import { DEFAULT_PORT, type Item } from './model.js';
import type { Exported } from './live.js';
import { RULE_PATHS } from './rule-paths.js';
import { fieldDefaults, fileFields } from './schemas.js';
import { RULE_SECTIONS } from './spec.js';

const TOOL_SCHEMAS = fileURLToPath(new URL('../../schemas/gitops/', import.meta.url));
const SCHEMA_FILES = ['domain.schema.json', 'repository.schema.json', 'settings.schema.json'];
/** Where an export puts the desired-state schemas, relative to the repository root: the modelines point there. */
export const EXPORTED_SCHEMAS = 'schemas';

/**
 * Copies this version's desired-state JSON Schemas into `<root>/schemas/`, so the modeline of an
 * exported file points inside the repository, wherever it is checked out. Returns the files written.
 */
export async function writeSchemas(root: string): Promise<string[]> {
  await mkdir(path.join(root, EXPORTED_SCHEMAS), { recursive: true });
  for (const file of SCHEMA_FILES) await copyFile(path.join(TOOL_SCHEMAS, file), path.join(root, EXPORTED_SCHEMAS, file));
  return SCHEMA_FILES.map((file) => path.join(EXPORTED_SCHEMAS, file));
}

/**
 * The environment variable an exported domain's origin-shield secret is read from (the API never
 * returns secrets): dots become `_` and hyphens `__`, so no two apexes share one (a-b.example is
 * ORIGIN_SHIELD_SECRET_A__B_EXAMPLE, a.b.example ORIGIN_SHIELD_SECRET_A_B_EXAMPLE).
 */
export function secretVariable(apex: string): string {
  return `ORIGIN_SHIELD_SECRET_${apex.toUpperCase().replace(/-/g, '__').replace(/\./g, '_')}`;
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0);
}

// The fields of a live item a file would write: those the file format has, left out when they hold the default.
function written(resource: string, item: Item, extraDefaults: Item = {}): Item {
  const defaults = { ...fieldDefaults(resource), ...extraDefaults };
  return Object.fromEntries(
    fileFields(resource)
      .filter((field) => !isEmpty(item[field]) && !isDeepStrictEqual(item[field], defaults[field]))
      .map((field) => [field, item[field]]),
  );
}

// Routing as a file writes it: routing_mode left out when it is the default (geo), and the whole
// section when nothing is left; loading the file fills them back in.
function routingOf(routing: Item): Item | undefined {
  const out: Item = {};
  if (routing.routing_mode !== fieldDefaults('routing').routing_mode) out.routing_mode = routing.routing_mode;
  if (routing.geo_health_port !== null && routing.geo_health_port !== undefined) out.geo_health_port = routing.geo_health_port;
  for (const family of ['anycast_ipv4', 'anycast_ipv6']) if (Array.isArray(routing[family]) && (routing[family] as unknown[]).length) out[family] = routing[family];
  return Object.keys(out).length ? out : undefined;
}

function geoRoutesOf(exported: Exported): Item[] {
  const byId = new Map(exported.records.map((record) => [String(record.id), record]));
  return exported.geo_routes.flatMap((set) => {
    const record = byId.get(set.record_id);
    if (!record || set.routes.length === 0) return [];
    const twins = exported.records.filter((other) => other.name === record.name && ['A', 'AAAA', 'CNAME'].includes(String(other.type))).length;
    const routes = set.routes.map((route) => (route.code ? { scope: route.scope, code: route.code, target: route.target } : { scope: route.scope, target: route.target }));
    return [{ record: record.name, ...(twins > 1 ? { type: record.type } : {}), routes }];
  });
}

/** The desired-state document of one exported domain: everything live, defaults left out, secrets as ${VAR}. */
export function domainSpecOf(exported: Exported): Item {
  const { domain } = exported;
  const apex = String(domain.domain);
  const spec: Item = { domain: apex };
  if (domain.name !== apex) spec.name = domain.name;
  if (domain.display_name !== null) spec.display_name = domain.display_name;
  if (domain.zone_name !== apex) spec.zone_name = domain.zone_name;
  const shield: Item = {};
  if (domain.origin_shield_header_name) shield.header_name = domain.origin_shield_header_name;
  if (domain.origin_shield_secret_set) shield.secret = `\${${secretVariable(apex)}}`;
  if (Object.keys(shield).length) spec.origin_shield = shield;
  const routing = routingOf(exported.routing);
  if (routing) spec.routing = routing;
  if (exported.records.length) spec.records = exported.records.map((record) => written('record', { ...record, routing_policy: record.routing_policy === 'geo' ? undefined : record.routing_policy }));
  const geo = geoRoutesOf(exported);
  if (geo.length) spec.geo_routes = geo;
  if (exported.origins.length) spec.origins = exported.origins.map((origin) => written('origin', origin, { port: DEFAULT_PORT[String(origin.scheme)] }));
  if (exported.cache.customised) spec.cache = written('cache', exported.cache);
  if (exported.ssl.customised) spec.ssl = written('ssl', exported.ssl);
  for (const section of RULE_SECTIONS) {
    const rules = (exported.rules[RULE_PATHS[section]] ?? []).filter((rule) => !rule.legacy);
    if (rules.length) spec[section] = rules.map((rule) => written(section, rule));
  }
  return spec;
}

function mapsOf(node: unknown): YAMLMap[] {
  return isSeq(node) ? node.items.filter(isMap) : [];
}

function flow(node: unknown): void {
  if (isMap(node) || isSeq(node)) node.flow = true;
}

// Records, origins and geo routes one per line, as people write them; rules in blocks with a one-line
// match; lists of plain values on one line.
function styled(document: Document): void {
  const root = document.contents as YAMLMap;
  for (const section of ['records', 'origins']) mapsOf(root.get(section, true)).forEach(flow);
  for (const set of mapsOf(root.get('geo_routes', true))) mapsOf(set.get('routes', true)).forEach(flow);
  for (const section of RULE_SECTIONS) for (const rule of mapsOf(root.get(section, true))) flow(rule.get('match', true));
  visit(document, { Seq: (_, node) => (node.items.every(isScalar) ? flow(node) : undefined) });
}

/** The text of `domains/<apex>.yaml` for an exported domain, with the modeline naming the schema the export wrote beside it. */
export function domainFileText(exported: Exported): string {
  const document = new Document(domainSpecOf(exported));
  styled(document);
  return `# yaml-language-server: $schema=../${EXPORTED_SCHEMAS}/domain.schema.json\n# Exported from the live service; review it, then commit it to bring the domain under git.\n${document.toString({ lineWidth: 0 })}`;
}

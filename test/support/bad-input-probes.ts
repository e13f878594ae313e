import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { Route } from '../../src/http/route.js';
import { validBodyFor } from './valid-bodies.js';

// Hostile requests for every route of the route table, built from the route's declaration alone,
// so a new route is swept as soon as it is declared: bad path parameters, bad query values,
// bodies broken one field at a time, absurdly deep bodies and bodies that lie about their encoding.

/** One request of the sweep. `body` is sent as is; the sender adds credentials for `route.auth`. */
export type Probe = { label: string; route: Route; method: string; path: string; body?: string; headers?: Record<string, string> };

/** Path parameter values of the records a sweep created, by parameter name (rule ids by the path segment before them). */
export type ValidParams = { byName: Record<string, string>; ruleIds: Record<string, string> };

const PARAM_PROBES = ['sweep%00id', '%ZZ', '%FF', '99999999999999999999'];
// Every query parameter a route of the core reads.
export const QUERY_NAMES = ['domain_id', 'limit', 'offset', 'from', 'to', 'bucket', 'if_version', 'format', 'actor', 'action', 'target_type', 'target', 'version', 'change', 'run', 'domains'];
const QUERY_PROBES = ['sweep%00id', '%ZZ', '999999999999', '99999999999999999999', '1e308'];
const STRING_PROBES = ['sweep\u0000value', 'sweep\ud800value'];
const NUMBER_PROBES = [1e308, 2 ** 63];
const DEPTH = 20000;
const DEEP_BODIES = { 'deep object': `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`, 'deep array': `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}` };
const ENCODINGS = ['gzip', 'deflate', 'br'];
const MISSING = 'sweep-missing';

type Leaf = { path: (string | number)[]; value: string | number };

function leaves(value: unknown, path: (string | number)[] = []): Leaf[] {
  if (typeof value === 'string' || typeof value === 'number') return [{ path, value }];
  if (Array.isArray(value)) return value.flatMap((inner, index) => leaves(inner, [...path, index]));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, inner]) => leaves(inner, [...path, key]));
  return [];
}

function withValue(body: unknown, path: (string | number)[], value: unknown): unknown {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path.at(-1)!] = value;
  return copy;
}

function paramNames(route: Route): string[] {
  return [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]);
}

function validParam(route: Route, name: string, valid: ValidParams): string {
  if (name === 'ruleId') return valid.ruleIds[route.path.split('/').at(-2)!] ?? MISSING;
  return valid.byName[name] ?? MISSING;
}

function fillPath(route: Route, value: (name: string) => string): string {
  return route.path.replace(/:(\w+)/g, (_match, name: string) => value(name));
}

function schemaTypes(property: Record<string, unknown>): string[] {
  const type = property.type;
  return Array.isArray(type) ? type.map(String) : typeof type === 'string' ? [type] : [];
}

// Top-level fields the schema declares but the valid body leaves out, with a bad value of their type.
function absentFieldBodies(ajv: Ajv2020, route: Route, body: Record<string, unknown>): { field: string; body: unknown }[] {
  const properties = ((ajv.getSchema(route.body!)?.schema ?? {}) as { properties?: Record<string, Record<string, unknown>> }).properties ?? {};
  return Object.entries(properties)
    .filter(([name]) => !(name in body))
    .flatMap(([name, property]) => {
      const types = schemaTypes(property);
      const values = [...(types.includes('string') ? STRING_PROBES : []), ...(types.includes('integer') || types.includes('number') ? NUMBER_PROBES : [])];
      return values.map((value) => ({ field: name, body: { ...body, [name]: value } }));
    });
}

function pathProbes(route: Route, valid: ValidParams, body: string | undefined): Probe[] {
  const method = route.method.toUpperCase();
  const names = paramNames(route);
  const probes = names.flatMap((name) =>
    PARAM_PROBES.map((probe) => ({ label: `path ${name}=${probe}`, route, method, body, path: fillPath(route, (other) => (other === name ? probe : validParam(route, other, valid))) })),
  );
  const base = fillPath(route, (name) => validParam(route, name, valid));
  probes.push({ label: 'path suffix %ZZ', route, method, body, path: `${base}/%ZZ` }, { label: 'path suffix %00', route, method, body, path: `${base}%00` });
  return probes;
}

function queryProbes(route: Route, valid: ValidParams): Probe[] {
  if (route.method !== 'get') return [];
  const base = fillPath(route, (name) => validParam(route, name, valid));
  return QUERY_NAMES.flatMap((name) => QUERY_PROBES.map((probe) => ({ label: `query ${name}=${probe}`, route, method: 'GET', path: `${base}?${name}=${probe}` })));
}

function fieldProbes(route: Route, ajv: Ajv2020, valid: ValidParams, bodies: Record<string, unknown>): Probe[] {
  if (!route.body) return [];
  const body = validBodyFor(bodies, route.body);
  if (body === undefined) throw new Error(`no valid body for schema ${route.body} (add one to test/support/valid-bodies.ts)`);
  const method = route.method.toUpperCase();
  const path = fillPath(route, (name) => validParam(route, name, valid));
  const broken = leaves(body).flatMap((leaf) =>
    (typeof leaf.value === 'string' ? STRING_PROBES : NUMBER_PROBES).map((value) => ({ field: leaf.path.join('.'), body: withValue(body, leaf.path, value) })),
  );
  broken.push(...absentFieldBodies(ajv, route, body as Record<string, unknown>));
  return broken.map(({ field, body: sent }) => ({ label: `body ${field}=${JSON.stringify(leafAt(sent, field))}`, route, method, path, body: JSON.stringify(sent) }));
}

function leafAt(body: unknown, field: string): unknown {
  return field.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], body);
}

// Bodies no route could want. Routes that ignore bodies get missing ids, so a delete or logout is not carried out.
function wholeBodyProbes(route: Route, valid: ValidParams): Probe[] {
  if (route.method === 'get') return [];
  const method = route.method.toUpperCase();
  const path = fillPath(route, (name) => (route.body ? validParam(route, name, valid) : MISSING));
  const deep = Object.entries(DEEP_BODIES).map(([label, body]) => ({ label, route, method, path, body }));
  const encoded = ENCODINGS.map((encoding) => ({ label: `plain body sent as Content-Encoding: ${encoding}`, route, method, path, body: '{"sweep":true}', headers: { 'content-encoding': encoding } }));
  return [...deep, ...encoded];
}

/** Every probe of `route`: path parameters, query values (GET), broken body fields, deep and mislabelled bodies. */
export function probesFor(route: Route, ajv: Ajv2020, valid: ValidParams, bodies: Record<string, unknown>): Probe[] {
  const body = route.body ? JSON.stringify(validBodyFor(bodies, route.body)) : undefined;
  return [...pathProbes(route, valid, body), ...queryProbes(route, valid), ...fieldProbes(route, ajv, valid, bodies), ...wholeBodyProbes(route, valid)];
}

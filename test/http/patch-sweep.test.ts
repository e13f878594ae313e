import { isDeepStrictEqual } from 'node:util';
import { expect } from 'chai';
import pino from 'pino';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { loadConfig } from '../../src/config/load.js';
import { coreRoutes } from '../../src/core/routes.js';
import type { Route } from '../../src/http/route.js';
import { loadApiSchemas } from '../../src/http/validation.js';
import { ActiveVersion } from '../../src/publish/active-version.js';
import { TestCore, type Json } from '../support/core.js';
import { PATCH_FIXTURES, type PatchFixture } from './patch-fixtures.js';

type Property = { type?: string | string[]; enum?: unknown[]; minimum?: number; default?: unknown };
type Schema = { properties?: Record<string, Property>; required?: string[] };

function schemaOf(ajv: Ajv2020, id: string | undefined): Schema {
  return id ? ((ajv.getSchema(id)?.schema ?? {}) as Schema) : {};
}

// A valid value other than `current` for the simple kinds of field; undefined when the fixture must name one.
function derivedValue(property: Property | undefined, current: unknown): unknown {
  if (!property) return undefined;
  if (property.enum) return property.enum.find((value) => value !== current);
  const types = [property.type].flat();
  if (types.includes('boolean')) return current !== true;
  if (types.includes('integer')) {
    const min = property.minimum ?? 0;
    return current === min ? min + 1 : min;
  }
  return undefined;
}

function concretePath(pattern: string, params: Record<string, string>): string {
  return pattern.replace(/:(\w+)/g, (_match, name: string) => params[name]);
}

function changedFields(before: Json, after: Json, ignored: Set<string>): string[] {
  return Object.keys({ ...before, ...after })
    .filter((key) => !ignored.has(key) && !isDeepStrictEqual(before[key], after[key]))
    .map((key) => `${key} ${JSON.stringify(before[key])} → ${JSON.stringify(after[key])}`);
}

// Patching one field must change that field and nothing else (derived fields named by the fixture aside).
async function sweepField(core: TestCore, route: Route, fixture: PatchFixture, schema: Schema, parent: Record<string, string>, field: string, n: number): Promise<string[]> {
  const label = `PATCH ${concretePath(route.path, parent)} ${field}`;
  const params = await fixture.create(core, parent, n, fixture.fresh?.[field] ?? {});
  const before = await fixture.read(core, params);
  const value = fixture.values && field in fixture.values ? fixture.values[field] : derivedValue(schema.properties?.[field], before[field]);
  if (value === undefined) return [`${label}: the fixture names no value to patch it to`];
  const required = Object.fromEntries((schema.required ?? []).map((name) => [name, before[name]]));
  try {
    await core.patch(concretePath(route.path, params), { ...required, [field]: value });
  } catch (error) {
    return [`${label}: ${(error as Error).message}`];
  }
  const after = await fixture.read(core, params);
  const problems = changedFields(before, after, new Set([field, 'updated_at', ...(fixture.follows?.[field] ?? [])])).map((change) => `${label}: also changed ${change}`);
  if (field in before && isDeepStrictEqual(before[field], after[field])) problems.push(`${label}: the patch did not change it`);
  return problems;
}

// The fresh resource must hold a non-default value in every defaulted field, or a reset to the default would go unseen.
async function defaultsProblems(core: TestCore, ajv: Ajv2020, route: Route, fixture: PatchFixture, parent: Record<string, string>, n: number): Promise<string[]> {
  if (!fixture.createSchema) return [];
  const created = await fixture.read(core, await fixture.create(core, parent, n, {}));
  return Object.entries(schemaOf(ajv, fixture.createSchema).properties ?? {})
    .filter(([name, property]) => property.default !== undefined && isDeepStrictEqual(created[name], property.default))
    .map(([name]) => `PATCH ${route.path}: the fixture leaves ${name} at its default`);
}

describe('PATCH on every route of the route table', function () {
  this.timeout(300000);
  let core: TestCore;
  let ajv: Ajv2020;
  let routes: Route[];
  let n = 0;
  before(async () => {
    core = await TestCore.start();
    ajv = loadApiSchemas();
    const logger = pino({ level: 'silent' });
    const deps = { config: loadConfig({}), prisma: core.db, pool: core.core.connection.pool, ajv, logger, activeVersion: new ActiveVersion(core.core.connection.pool, core.databaseUrl, logger) };
    routes = coreRoutes(deps).filter((route) => route.method === 'patch');
  });
  after(async () => {
    await core.stop();
  });

  it('knows how to exercise every PATCH route', () => {
    expect(routes.length).to.be.greaterThan(10);
    expect(routes.map((route) => route.path).filter((path) => !PATCH_FIXTURES[path])).to.deep.equal([]);
  });

  it('changes only the field sent, for every field of every PATCH route', async () => {
    const problems: string[] = [];
    for (const route of routes) {
      const fixture = PATCH_FIXTURES[route.path];
      if (!fixture) continue;
      const schema = schemaOf(ajv, route.body);
      const shared = fixture.parent ? await fixture.parent(core) : {};
      for (const variant of fixture.variants ?? [{}]) {
        const parent = { ...shared, ...variant };
        problems.push(...(await defaultsProblems(core, ajv, route, fixture, parent, ++n)));
        const fields = fixture.fields?.(parent) ?? Object.keys(schema.properties ?? {});
        if (fields.length === 0) problems.push(`PATCH ${route.path}: no patchable fields found`);
        for (const field of fields) problems.push(...(await sweepField(core, route, fixture, schema, parent, field, ++n)));
      }
    }
    expect(problems, problems.join('\n')).to.deep.equal([]);
  });
});

import { validate } from '@readme/openapi-parser';
import { expect } from 'chai';
import pino from 'pino';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { loadConfig } from '../../src/config/load.js';
import { coreRoutes } from '../../src/core/routes.js';
import { OPENAPI_PATH, openApiPath } from '../../src/http/openapi.js';
import { ERROR_SCHEMA } from '../../src/http/openapi-errors.js';
import { compileResponseSchemas, readRequestExamples, readResponseSchemas, requestExampleOf } from '../../src/http/response-schemas.js';
import type { Route } from '../../src/http/route.js';
import { loadApiSchemas } from '../../src/http/validation.js';
import { ActiveVersion } from '../../src/publish/active-version.js';
import type { Json } from '../support/core.js';
import { QUERY_NAMES } from '../support/bad-input-probes.js';
import { SEEDED_DOMAIN, SeededCore, writeOrder } from '../support/seeded-core.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
// Writes no core of a test can answer with success, with the refusal they get instead: their
// response schema is written from the handler, and the sweep checks the refusal is documented.
const REFUSED_HERE: Record<string, { status: number; why: string }> = {
  'POST /api/v1/gitops/reconcile': { status: 409, why: 'it wakes the core\'s own GitOps controller, which would reconcile the seeded domains away' },
};

function operationsOf(document: Json): string[] {
  return Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => METHODS.includes(key))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

// A query value no parameter of the API takes: a route that reads a parameter of a given form refuses it.
const BAD_QUERY_VALUE = 'not valid!';

function problemsOf(validateFn: ValidateFunction, value: unknown): string | undefined {
  if (validateFn(value)) return undefined;
  return (validateFn.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}`).join('; ');
}

// The OpenAPI document (docs/api.md, "OpenAPI document"): generated from the route table, served by
// the core, valid, complete, and honest about what every route answers.
describe('OpenAPI document', function () {
  this.timeout(120000);
  let seeded: SeededCore;
  let routes: Route[];
  let document: Json;

  before(async () => {
    seeded = await SeededCore.start();
    const logger = pino({ level: 'silent' });
    const connection = seeded.core.core.connection;
    const config = loadConfig({ CDN_CONFIG_SNAPSHOT_HISTORY_ENABLED: 'true' });
    routes = coreRoutes({ config, prisma: connection.prisma, pool: connection.pool, ajv: loadApiSchemas(), logger, activeVersion: new ActiveVersion(connection.pool, seeded.core.databaseUrl, logger) });
    const response = await fetch(`${seeded.url}${OPENAPI_PATH}`);
    expect(response.status).to.equal(200);
    document = await response.json();
  });
  after(async () => {
    await seeded?.stop();
  });

  it('is served without credentials as a valid OpenAPI 3.1 document', async () => {
    expect(document.openapi).to.equal('3.1.0');
    const result = await validate(structuredClone(document));
    expect(result.valid, JSON.stringify(result)).to.equal(true);
  });

  it('documents every route of the route table and nothing else', () => {
    const table = routes.map((route) => `${route.method.toUpperCase()} ${openApiPath(route.path)}`);
    expect(new Set(table).size, 'the route table has no duplicate').to.equal(table.length);
    expect(operationsOf(document).sort()).to.deep.equal([...table].sort());
  });

  it('documents each route with its auth, request schema and success status', () => {
    const schemes: Record<Route['auth'], string[]> = { public: [], api: ['apiToken', 'adminSession'], 'admin-session': ['adminSession'], edge: ['edgeToken'] };
    for (const route of routes) {
      const operation = document.paths[openApiPath(route.path)][route.method];
      const where = `${route.method.toUpperCase()} ${route.path}`;
      expect(operation.security.flatMap((entry: object) => Object.keys(entry)), where).to.deep.equal(schemes[route.auth]);
      expect(operation.requestBody?.content['application/json']?.schema.$ref, where).to.equal(route.body && `#/components/schemas/${route.body}`);
      expect(Object.keys(operation.responses), where).to.include(String(route.status ?? 200));
    }
  });

  it('names a response schema for every route, and every response schema is named or referred to', () => {
    const undescribed = routes.filter((route) => !route.response).map((route) => `${route.method.toUpperCase()} ${route.path}`);
    expect(undescribed).to.deep.equal([]);
    const inDocument = new Set(Object.keys(document.components.schemas));
    const unused = [...readResponseSchemas().keys()].filter((id) => !inDocument.has(id));
    expect(unused, 'schemas/api-responses files no route answers with').to.deep.equal([]);
  });

  it('gives every request body an example its schema accepts', () => {
    const ajv = loadApiSchemas();
    const examples = readRequestExamples();
    const problems = [...new Set(routes.flatMap((route) => (route.body ? [route.body] : [])))].flatMap((id) => {
      const example = requestExampleOf(examples, id);
      if (example === undefined) return [`${id}: no example in schemas/api-request-examples.json`];
      const problem = problemsOf(ajv.getSchema(id)!, structuredClone(example));
      return problem ? [`${id}: ${problem}`] : [];
    });
    expect(problems).to.deep.equal([]);
  });

  it('gives every response schema an example it accepts', () => {
    const schemas = readResponseSchemas();
    const ajv = compileResponseSchemas(schemas);
    const problems = [...schemas.entries()].flatMap(([id, schema]) => {
      const examples = (schema.examples ?? []) as unknown[];
      if (examples.length === 0) return [`${id}: no example`];
      return examples.flatMap((example) => problemsOf(ajv.getSchema(id)!, example) ?? []).map((problem) => `${id}: ${problem}`);
    });
    expect(problems).to.deep.equal([]);
  });

  it('answers every documented GET with a body its response schema accepts', async () => {
    const ajv = compileResponseSchemas();
    const required: Record<string, string> = { version: seeded.ids.version, host: SEEDED_DOMAIN };
    const documented = new Set(operationsOf(document).filter((operation) => operation.startsWith('GET ')));
    const failures: string[] = [];
    for (const route of routes.filter((candidate) => candidate.method === 'get' && documented.has(`GET ${openApiPath(candidate.path)}`))) {
      const query = (route.query ?? []).filter((parameter) => parameter.required).map((parameter) => `${parameter.name}=${encodeURIComponent(required[parameter.name])}`);
      const path = `${seeded.pathOf(route)}${query.length > 0 ? `?${query.join('&')}` : ''}`;
      const response = await fetch(`${seeded.url}${path}`, { headers: seeded.headersFor(route, 'GET', path) });
      const text = await response.text();
      if (response.status !== (route.status ?? 200)) {
        failures.push(`GET ${path} answered ${response.status}: ${text.slice(0, 200)}`);
        continue;
      }
      const problem = problemsOf(ajv.getSchema(route.response!)!, JSON.parse(text));
      if (problem) failures.push(`GET ${route.path} does not match ${route.response}: ${problem}`);
    }
    expect(documented.size).to.be.greaterThan(50);
    expect(failures).to.deep.equal([]);
  });

  it('answers every GET without parameters of a new installation with a body its response schema accepts', async () => {
    const ajv = compileResponseSchemas();
    const empty = await SeededCore.start({ empty: true });
    const failures: string[] = [];
    try {
      for (const route of routes.filter((candidate) => candidate.method === 'get' && !candidate.path.includes(':') && !candidate.query?.some((parameter) => parameter.required))) {
        const response = await fetch(`${empty.url}${route.path}`, { headers: empty.headersFor(route, 'GET', route.path) });
        const text = await response.text();
        if (response.status !== (route.status ?? 200)) failures.push(`GET ${route.path} answered ${response.status}: ${text.slice(0, 200)}`);
        else {
          const problem = problemsOf(ajv.getSchema(route.response!)!, JSON.parse(text));
          if (problem) failures.push(`GET ${route.path} does not match ${route.response}: ${problem}`);
        }
      }
    } finally {
      await empty.stop();
    }
    expect(failures).to.deep.equal([]);
  });

  // A GET of the route with its required query parameters and `extra`, as its auth level sends it.
  async function getWith(route: Route, extra: Record<string, string>): Promise<{ status: number; body: Json }> {
    const required: Record<string, string> = { version: seeded.ids.version, host: SEEDED_DOMAIN };
    const query = new URLSearchParams({ ...Object.fromEntries((route.query ?? []).filter((parameter) => parameter.required).map((parameter) => [parameter.name, required[parameter.name]])), ...extra });
    const path = `${seeded.pathOf(route)}${query.size > 0 ? `?${query}` : ''}`;
    const response = await fetch(`${seeded.url}${path}`, { headers: seeded.headersFor(route, 'GET', path) });
    return { status: response.status, body: await response.json() };
  }

  it('declares every query parameter a GET refuses a malformed value of', async () => {
    const names = new Set([...QUERY_NAMES, ...routes.flatMap((route) => (route.query ?? []).map((parameter) => parameter.name))]);
    const undeclared: string[] = [];
    for (const route of routes.filter((candidate) => candidate.method === 'get')) {
      const declared = new Set([...(route.paged ? ['limit', 'offset'] : []), ...(route.query ?? []).map((parameter) => parameter.name)]);
      for (const name of [...names].filter((candidate) => !declared.has(candidate))) {
        const answer = await getWith(route, { [name]: BAD_QUERY_VALUE });
        if (answer.status === 422 && answer.body.field === name) undeclared.push(`GET ${route.path} reads ${name}`);
      }
    }
    expect(undeclared).to.deep.equal([]);
  });

  it('refuses a malformed value of every declared enum or number query parameter, naming it', async () => {
    const unread: string[] = [];
    for (const route of routes.filter((candidate) => candidate.method === 'get')) {
      const checked = (route.query ?? []).filter((parameter) => parameter.schema.enum || parameter.schema.type === 'integer');
      for (const parameter of checked) {
        const answer = await getWith(route, { [parameter.name]: BAD_QUERY_VALUE });
        if (answer.status !== 422 || answer.body.field !== parameter.name) unread.push(`GET ${route.path} ?${parameter.name}= answered ${answer.status} ${JSON.stringify(answer.body).slice(0, 120)}`);
      }
    }
    expect(unread).to.deep.equal([]);
  });

  // Last: the writes delete what the reads above need.
  it('answers every documented write with a body its response schema accepts', async () => {
    const ajv = compileResponseSchemas();
    const errorShape = new Ajv2020({ strict: true }).compile(ERROR_SCHEMA);
    const failures: string[] = [];
    for (const route of writeOrder(routes)) {
      const where = `${route.method.toUpperCase()} ${route.path}`;
      const request = await seeded.writeRequestOf(route);
      const response = await fetch(`${seeded.url}${request.path}`, { method: route.method.toUpperCase(), headers: request.headers, body: request.body });
      const text = await response.text();
      const refused = REFUSED_HERE[where];
      const documented = Object.keys(document.paths[openApiPath(route.path)][route.method].responses);
      if (refused) {
        if (response.status !== refused.status || !documented.includes(String(response.status)) || !errorShape(JSON.parse(text))) failures.push(`${where} (refused here: ${refused.why}) answered ${response.status}: ${text.slice(0, 200)}`);
        continue;
      }
      if (response.status !== (route.status ?? 200)) {
        failures.push(`${where} answered ${response.status}: ${text.slice(0, 200)}`);
        continue;
      }
      const problem = problemsOf(ajv.getSchema(route.response!)!, JSON.parse(text));
      if (problem) failures.push(`${where} does not match ${route.response}: ${problem}`);
    }
    expect(failures).to.deep.equal([]);
  });
});

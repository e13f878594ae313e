import type { Ajv2020 } from 'ajv/dist/2020.js';
import { CORE_VERSION } from '../features/health/routes.js';
import type { AuthLevel } from './auth.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from './paging.js';
import { ERROR_MEANINGS, ERROR_SCHEMA, errorStatusesOf } from './openapi-errors.js';
import { componentRef, componentsFor } from './openapi-schemas.js';
import { readRequestExamples, readResponseSchemas, requestExampleOf, type JsonSchema } from './response-schemas.js';
import { RawJson, type QueryParameter, type Route } from './route.js';

/** Where the core serves its OpenAPI document. */
export const OPENAPI_PATH = '/api/v1/openapi.json';

// How each auth level is presented: the API token and an admin session are both bearers, an edge signs its request.
const SECURITY_SCHEMES = {
  apiToken: { type: 'http', scheme: 'bearer', description: 'The API token (CDN_API_TOKEN). With CDN_API_TOKEN unset, endpoints of this scheme need no bearer (local use).' },
  adminSession: { type: 'http', scheme: 'bearer', description: 'An admin session token from POST /api/v1/admin/login.' },
  edgeToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'An edge token, with the request signed by it: X-CDN-Edge-Id, X-CDN-Timestamp, X-CDN-Nonce and X-CDN-Signature (HMAC-SHA256 over method, path with query, timestamp, nonce, edge id and body; docs/edge-protocol.md).',
  },
};

const SECURITY_OF: Record<AuthLevel, Record<string, string[]>[]> = {
  public: [],
  api: [{ apiToken: [] }, { adminSession: [] }],
  'admin-session': [{ adminSession: [] }],
  edge: [{ edgeToken: [] }],
};

const PAGING: QueryParameter[] = [
  { name: 'limit', description: `Page size, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT}; out of range is 422 naming it).`, schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT } },
  { name: 'offset', description: 'Records to skip (default 0; negative is 422 naming it).', schema: { type: 'integer', minimum: 0, default: 0 } },
];

/** `/api/v1/domains/:domainId` in OpenAPI's spelling, `/api/v1/domains/{domainId}`. */
export function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}

function operationId(route: Route): string {
  const words = route.path.split('/').filter((part) => part && part !== 'api' && part !== 'v1').map((part) => part.replace(/^:/, 'by-'));
  return [route.method, ...words].join('-').replace(/[^\w-]/g, '-');
}

function parametersOf(route: Route): unknown[] {
  const pathParameters = [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string', minLength: 1 } }));
  const query = [...(route.paged ? PAGING : []), ...(route.query ?? [])].map((parameter) => ({ ...parameter, in: 'query', required: parameter.required ?? false }));
  return [...pathParameters, ...query];
}

function requestBodyOf(route: Route, examples: Record<string, unknown>): unknown {
  if (route.body) {
    const example = requestExampleOf(examples, route.body);
    return { required: !route.optionalBody, content: { 'application/json': { schema: componentRef(route.body), ...(example === undefined ? {} : { example }) } } };
  }
  if (route.rawBody) return { required: true, content: { '*/*': { schema: { type: 'string', description: 'The exact bytes are signed; JSON is parsed.' } } } };
  return undefined;
}

// A route without a response schema fails the document loudly, as a missing request schema fails the start.
function responsesOf(route: Route): Record<string, unknown> {
  if (!route.response) throw new Error(`route ${route.method.toUpperCase()} ${route.path} names no response schema (Route.response)`);
  const success = { description: 'Success.', content: { 'application/json': { schema: componentRef(route.response) } } };
  const errors = errorStatusesOf(route).map((status) => [String(status), { $ref: `#/components/responses/${status}` }]);
  return { [String(route.status ?? 200)]: success, ...Object.fromEntries(errors) };
}

function operationOf(route: Route, examples: Record<string, unknown>): Record<string, unknown> {
  const operation: Record<string, unknown> = {
    operationId: operationId(route),
    tags: [tagOf(route.path)],
    security: SECURITY_OF[route.auth],
    parameters: parametersOf(route),
    responses: responsesOf(route),
  };
  const body = requestBodyOf(route, examples);
  if (body) operation.requestBody = body;
  return operation;
}

// The first path word after /api/v1 groups operations (domains, edge, gitops...); health checks are their own group.
function tagOf(path: string): string {
  const words = path.split('/').filter(Boolean);
  return words[0] === 'api' ? (words[2] ?? 'api') : 'health';
}

function errorResponses(): Record<string, unknown> {
  const entries = Object.entries(ERROR_MEANINGS).map(([status, description]) => [status, { description, content: { 'application/json': { schema: componentRef('error') } } }]);
  return Object.fromEntries(entries);
}

// A request schema comes from the compiled ones (derived PATCH schemas included), a response schema from its file.
function schemaLookup(ajv: Ajv2020, responses: Map<string, JsonSchema>): (id: string) => JsonSchema {
  return (id) => {
    const schema = responses.get(id) ?? (ajv.getSchema(id)?.schema as JsonSchema | undefined);
    if (!schema || typeof schema !== 'object') throw new Error(`no JSON Schema with $id ${id} in schemas/api or schemas/api-responses`);
    return schema;
  };
}

function pathsOf(routes: Route[], examples: Record<string, unknown>): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) (paths[openApiPath(route.path)] ??= {})[route.method] = operationOf(route, examples);
  return paths;
}

/**
 * The OpenAPI 3.1 document of `routes`, generated from the route table alone: each route's auth,
 * request schema (`ajv`'s schemas/api) with its example (schemas/api-request-examples.json), query
 * parameters, response schema (schemas/api-responses, examples inside) and the error answers its kind can give.
 */
export function buildOpenApiDocument(routes: Route[], ajv: Ajv2020, responses = readResponseSchemas(), examples = readRequestExamples()): Record<string, unknown> {
  const used = routes.flatMap((route) => [route.body, route.response].filter((id): id is string => id !== undefined));
  const schemas = { ...componentsFor(new Set(used), schemaLookup(ajv, responses)), error: ERROR_SCHEMA };
  return {
    openapi: '3.1.0',
    info: {
      title: 'CDN control plane API',
      version: CORE_VERSION,
      description: 'The core REST API, generated from its route table (docs/api.md, "OpenAPI document"). Conventions, paging and errors: docs/api.md.',
    },
    servers: [{ url: '/' }],
    paths: pathsOf(routes, examples),
    components: { securitySchemes: SECURITY_SCHEMES, schemas, responses: errorResponses() },
  };
}

/** The route serving the document of `routes` (itself included), built once on first request. */
export function openApiRoute(ajv: Ajv2020, routes: Route[]): Route {
  let json: string | undefined;
  const route: Route = {
    method: 'get',
    path: OPENAPI_PATH,
    auth: 'public',
    response: 'openapi-document',
    handler: async () => new RawJson((json ??= JSON.stringify(buildOpenApiDocument([...routes, route], ajv)))),
  };
  return route;
}

// The OpenAPI document (GET /api/v1/openapi.json) read into what the API reference view lists:
// operations grouped by tag, each with its auth, parameters, body and answers, examples resolved.

type Schema = { $ref?: string; examples?: unknown[] } & Record<string, unknown>;
type Parameter = { name: string; in: string; required: boolean; description?: string; schema?: Schema };
type Media = { schema?: Schema; example?: unknown };
type Operation = {
  operationId: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, Media> };
  responses: Record<string, { $ref?: string; description?: string; content?: Record<string, Media> }>;
};
/** The parts of an OpenAPI 3.1 document the reference reads. */
export type OpenApiDocument = {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, { description?: string }> };
};

/** A top-level field of a body or of the record an answer carries. */
export type ReferenceField = { name: string; type: string; required: boolean; description: string };

/** One operation as the reference shows it. */
export type ReferenceOperation = {
  id: string;
  method: string;
  path: string;
  auth: string;
  parameters: { name: string; where: string; required: boolean; description: string }[];
  body?: { schema: string; required: boolean; fields: ReferenceField[]; example?: unknown };
  success: { status: string; schema?: string; fields: ReferenceField[]; example?: unknown };
  errors: string[];
};

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const AUTH_WORDS: Record<string, string> = { apiToken: 'API token', adminSession: 'admin session', edgeToken: 'signed edge token' };

function schemaName(schema: Schema | undefined): string | undefined {
  return schema?.$ref?.split('/').at(-1);
}

function exampleOf(document: OpenApiDocument, media: Media | undefined): unknown {
  if (media?.example !== undefined) return media.example;
  const name = schemaName(media?.schema);
  return name ? document.components.schemas[name]?.examples?.[0] : undefined;
}

function resolved(document: OpenApiDocument, schema: Schema | undefined): Schema | undefined {
  const name = schemaName(schema);
  return name ? document.components.schemas[name] : schema;
}

// A field's own type first: a `$ref` beside it only adds a rule (no-control-characters).
function typeOf(schema: Schema): string {
  if (schema.type === undefined && schema.$ref) return schemaName(schema)!;
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : String(schema.type ?? 'any');
  const items = schema.items as Schema | undefined;
  return type === 'array' && items ? `array of ${typeOf(items)}` : type;
}

// The object whose fields a reader wants: the body itself, or for an answer the record under `data` (a list's item).
function recordOf(document: OpenApiDocument, schema: Schema | undefined, answer: boolean): Schema | undefined {
  const top = resolved(document, schema);
  const data = answer ? (top?.properties as Record<string, Schema> | undefined)?.data : undefined;
  if (!data) return top;
  const inner = resolved(document, data);
  return inner?.type === 'array' ? resolved(document, inner.items as Schema | undefined) : inner;
}

/** The top-level fields of `schema` (for an answer, of the record under `data`), in their declared order. */
export function fieldsOf(document: OpenApiDocument, schema: Schema | undefined, answer = false): ReferenceField[] {
  const record = recordOf(document, schema, answer);
  const required = new Set((record?.required as string[] | undefined) ?? []);
  return Object.entries((record?.properties as Record<string, Schema> | undefined) ?? {}).map(([name, property]) => ({
    name,
    type: typeOf(property),
    required: required.has(name),
    description: String(property.description ?? ''),
  }));
}

function authOf(operation: Operation): string {
  const schemes = (operation.security ?? []).flatMap((entry) => Object.keys(entry));
  return schemes.length === 0 ? 'none' : schemes.map((scheme) => AUTH_WORDS[scheme] ?? scheme).join(' or ');
}

function referenceOf(document: OpenApiDocument, method: string, path: string, operation: Operation): ReferenceOperation {
  const statuses = Object.keys(operation.responses);
  const successStatus = statuses.find((status) => status.startsWith('2')) ?? statuses[0];
  const successMedia = operation.responses[successStatus]?.content?.['application/json'];
  const bodyMedia = operation.requestBody?.content['application/json'];
  return {
    id: operation.operationId,
    method: method.toUpperCase(),
    path,
    auth: authOf(operation),
    parameters: (operation.parameters ?? []).map((parameter) => ({ name: parameter.name, where: parameter.in, required: parameter.required, description: parameter.description ?? '' })),
    body: bodyMedia ? { schema: schemaName(bodyMedia.schema) ?? 'JSON', required: operation.requestBody?.required ?? false, fields: fieldsOf(document, bodyMedia.schema), example: exampleOf(document, bodyMedia) } : undefined,
    success: { status: successStatus, schema: schemaName(successMedia?.schema), fields: fieldsOf(document, successMedia?.schema, true), example: exampleOf(document, successMedia) },
    errors: statuses.filter((status) => status !== successStatus),
  };
}

/** Every operation of `document` by tag (tags in order of first appearance), optionally only those whose method and path contain `filter`. */
export function operationsByTag(document: OpenApiDocument, filter = ''): { tag: string; operations: ReferenceOperation[] }[] {
  const wanted = filter.trim().toLowerCase();
  const groups = new Map<string, ReferenceOperation[]>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS.filter((name) => item[name])) {
      const operation = referenceOf(document, method, path, item[method]);
      if (wanted && !`${operation.method} ${operation.path}`.toLowerCase().includes(wanted)) continue;
      const tag = item[method].tags?.[0] ?? 'other';
      groups.set(tag, [...(groups.get(tag) ?? []), operation]);
    }
  }
  return [...groups].map(([tag, operations]) => ({ tag, operations }));
}

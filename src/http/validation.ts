import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { patternDetail } from '../shared/control-characters.js';
import { ValidationError } from './errors.js';

export const API_SCHEMAS_DIR = fileURLToPath(new URL('../../schemas/api', import.meta.url));

type SchemaObject = { $id: string; required?: string[]; properties?: Record<string, Record<string, unknown>> } & Record<string, unknown>;

// Schemas named `X-create` (or `X-request`, one schema for both verbs) get a derived `X-patch`.
const PATCH_SOURCE = /-(create|request)$/;

/** The $id of the PATCH schema derived from a create schema's $id (the same $id when none is derived). */
export function patchIdOf(createId: string): string {
  return createId.replace(PATCH_SOURCE, '-patch');
}

/**
 * The PATCH form of a create schema: same fields and bounds, nothing required, no
 * top-level defaults, so a field the caller did not send stays absent and keeps its
 * stored value. Defaults inside a field's own schema stay: a PATCH replaces a sent
 * object (a rule's `settings`, `cache_key`) whole, and the new object is completed
 * as on create.
 */
export function patchVariant(create: SchemaObject): SchemaObject {
  const properties = Object.fromEntries(
    Object.entries(create.properties ?? {}).map(([name, property]) => {
      const { default: _ignored, ...rest } = property;
      return [name, rest];
    }),
  );
  const { required: _required, ...rest } = create;
  return { ...rest, $id: patchIdOf(create.$id), title: `${String(create.title ?? create.$id)} (patch)`, properties };
}

/**
 * Compiles every JSON Schema in schemas/api once. Validation fills in the
 * schemas' defaults, so services receive complete create requests. Each `X-create` or
 * `X-request` schema without an `X-patch` file gets a derived `X-patch` (see patchVariant).
 */
export function loadApiSchemas(dir = API_SCHEMAS_DIR): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, useDefaults: true });
  addFormats.default(ajv);
  const schemas = readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((file) => JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as SchemaObject);
  const ids = new Set(schemas.map((schema) => schema.$id));
  for (const schema of schemas) {
    ajv.addSchema(schema);
    const patchId = patchIdOf(schema.$id);
    if (patchId !== schema.$id && !ids.has(patchId)) ajv.addSchema(patchVariant(schema));
  }
  return ajv;
}

function fieldOf(error: ErrorObject): string | undefined {
  const pointer = error.instancePath.replace(/^\//, '').replaceAll('/', '.');
  const child =
    (error.params as { additionalProperty?: string }).additionalProperty ??
    (error.params as { missingProperty?: string }).missingProperty;
  if (child) return pointer ? `${pointer}.${child}` : child;
  return pointer || undefined;
}

function describe(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return `unknown field ${JSON.stringify(params.additionalProperty)}`;
    case 'required':
      return `${params.missingProperty} is required`;
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'pattern':
      return `${fieldOf(error) ?? 'body'} ${patternDetail(params.pattern) ?? error.message ?? 'is invalid'}`;
    default:
      return `${fieldOf(error) ?? 'body'} ${error.message ?? 'is invalid'}`;
  }
}

// Report the most useful error first: a type or bound problem of a named field beats "unknown field".
function pickError(errors: ErrorObject[]): ErrorObject {
  const order = ['required', 'type', 'enum', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'format', 'additionalProperties'];
  const rank = (error: ErrorObject) => {
    const index = order.indexOf(error.keyword);
    return index === -1 ? order.length : index;
  };
  return [...errors].sort((a, b) => rank(a) - rank(b))[0];
}

/** The most useful problem of `data` against the compiled schema as {field, detail}, or undefined when valid. */
export function schemaProblem(validate: ValidateFunction, data: unknown, what = 'body'): { field?: string; detail: string } | undefined {
  if (validate(data)) return undefined;
  const errors = validate.errors ?? [];
  if (errors.length === 0) return { detail: `${what} is invalid` };
  const first = pickError(errors);
  if (first.instancePath === '' && first.keyword === 'type') return { detail: `${what} must be a JSON ${first.params.type}` };
  return { field: fieldOf(first), detail: describe(first) };
}

/** Throws ValidationError naming the offending field when `data` does not match the compiled schema. */
export function assertValid(validate: ValidateFunction, data: unknown, what = 'body'): void {
  const problem = schemaProblem(validate, data, what);
  if (problem) throw new ValidationError(problem.field, problem.detail);
}

/** The compiled validator for schema `$id`; fails loudly at start if the schema is missing. */
export function validatorFor(ajv: Ajv2020, id: string): ValidateFunction {
  const validate = ajv.getSchema(id);
  if (!validate) throw new Error(`no JSON Schema with $id ${id} in schemas/api`);
  return validate;
}

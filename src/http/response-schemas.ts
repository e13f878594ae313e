import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export const RESPONSE_SCHEMAS_DIR = fileURLToPath(new URL('../../schemas/api-responses', import.meta.url));
export const REQUEST_EXAMPLES_FILE = fileURLToPath(new URL('../../schemas/api-request-examples.json', import.meta.url));

/** A JSON Schema as read from its file. */
export type JsonSchema = { $id?: string } & Record<string, unknown>;

/** Every JSON Schema of schemas/api-responses, by $id: the success answers' bodies the OpenAPI document names. */
export function readResponseSchemas(dir = RESPONSE_SCHEMAS_DIR): Map<string, JsonSchema> {
  const schemas = readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((file) => JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as JsonSchema);
  return new Map(schemas.map((schema) => [String(schema.$id), schema]));
}

/**
 * The response schemas compiled for checking answers against them (strict, no defaults filled
 * in: an answer is read as it is). Their `examples` are annotations here.
 */
export function compileResponseSchemas(schemas = readResponseSchemas()): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats.default(ajv);
  for (const schema of schemas.values()) ajv.addSchema(schema);
  return ajv;
}

/** An example body per request schema $id (schemas/api-request-examples.json). */
export function readRequestExamples(file = REQUEST_EXAMPLES_FILE): Record<string, unknown> {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

/** The example body for request schema `id`: its own, else (a PATCH schema) its create or request schema's, valid for the patch too. */
export function requestExampleOf(examples: Record<string, unknown>, id: string): unknown {
  return examples[id] ?? examples[id.replace(/-patch$/, '-create')] ?? examples[id.replace(/-patch$/, '-request')];
}

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export const RESPONSE_SCHEMAS_DIR = fileURLToPath(new URL('../../schemas/api-responses', import.meta.url));

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

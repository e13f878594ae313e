import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

const SCHEMAS = new URL('../../schemas/', import.meta.url);

function schemaFile(relative: string): object {
  return JSON.parse(readFileSync(new URL(relative, SCHEMAS), 'utf8')) as object;
}

/**
 * A validator of config snapshots (schemas/snapshot/config-snapshot.schema.json,
 * whose matches follow schemas/api/rule-match.json). It never changes what it
 * checks: an edge validates a pulled snapshot with it before activating it.
 */
export function snapshotValidator(): ValidateFunction {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  ajv.addSchema(schemaFile('api/rule-match.json'));
  return ajv.compile(schemaFile('snapshot/config-snapshot.schema.json'));
}

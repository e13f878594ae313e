import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { patternDetail } from '../shared/control-characters.js';
import { RULE_SCHEMA_IDS } from './rule-paths.js';

const DIR = fileURLToPath(new URL('../../schemas/gitops/', import.meta.url));

export type GitopsValidators = { domain: ValidateFunction; repository: ValidateFunction; settings: ValidateFunction };

/** The desired-state validators. They fill in defaults, so a loaded file is complete. */
export function loadGitopsValidators(): GitopsValidators {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, useDefaults: true });
  addFormats.default(ajv);
  const compile = (file: string) => ajv.compile(JSON.parse(readFileSync(`${DIR}${file}`, 'utf8')));
  return { domain: compile('domain.schema.json'), repository: compile('repository.schema.json'), settings: compile('settings.schema.json') };
}

/** The path segments of an ajv instance path (`/records/0/ttl` → ['records', 0, 'ttl']). */
export function pathOf(error: ErrorObject): (string | number)[] {
  return error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
}

/** A one-line explanation of a schema error. */
export function messageOf(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  const where = error.instancePath ? error.instancePath.slice(1).replaceAll('/', '.') : 'document';
  switch (error.keyword) {
    case 'additionalProperties':
      return `unknown field ${JSON.stringify(params.additionalProperty)}${error.instancePath ? ` in ${where}` : ''}`;
    case 'required':
      return `${where === 'document' ? '' : `${where}: `}${params.missingProperty} is required`;
    case 'enum':
      return `${where} must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'pattern':
      return `${where} ${patternDetail(params.pattern) ?? error.message ?? 'is invalid'}`;
    default:
      return `${where} ${error.message ?? 'is invalid'}`;
  }
}

let nullable: Record<string, string[]> | undefined;

/**
 * Per rule section, the optional fields whose "not set" value is null (nullable,
 * no default): a rule that leaves them out of YAML wants them cleared on the live rule.
 */
export function nullableRuleFields(): Record<string, string[]> {
  if (nullable) return nullable;
  const defs = JSON.parse(readFileSync(`${DIR}domain.schema.json`, 'utf8')).$defs as Record<string, { properties: Record<string, { type?: unknown; default?: unknown }> }>;
  nullable = Object.fromEntries(
    Object.entries(RULE_SCHEMA_IDS).map(([section, id]) => [
      section,
      Object.entries(defs[id].properties)
        .filter(([, property]) => Array.isArray(property.type) && property.type.includes('null') && property.default === undefined)
        .map(([name]) => name),
    ]),
  );
  return nullable;
}

const DEFINITION_OF: Record<string, string> = { record: 'record', origin: 'origin', routing: 'routing', cache: 'cache-settings', ssl: 'ssl-settings-create', ...RULE_SCHEMA_IDS };
let properties: Record<string, Record<string, { default?: unknown }>> | undefined;

function propertiesOf(resource: string): Record<string, { default?: unknown }> {
  properties ??= (() => {
    const defs = JSON.parse(readFileSync(`${DIR}domain.schema.json`, 'utf8')).$defs as Record<string, { properties?: Record<string, { default?: unknown }> }>;
    return Object.fromEntries(Object.entries(DEFINITION_OF).map(([name, id]) => [name, defs[id].properties ?? {}]));
  })();
  return properties[resource] ?? {};
}

/** Per resource of a domain file (record, origin, routing, cache, ssl, each rule section), the fields a file may set. */
export function fileFields(resource: string): string[] {
  return Object.keys(propertiesOf(resource));
}

/** Per resource of a domain file, the value each field takes when the file leaves it out. */
export function fieldDefaults(resource: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(propertiesOf(resource)).filter(([, property]) => property.default !== undefined).map(([field, property]) => [field, property.default]));
}

import cacheRule from '../../schemas/api/cache-rule-create.json' with { type: 'json' };
import cacheSettings from '../../schemas/api/cache-settings.json' with { type: 'json' };
import headerRule from '../../schemas/api/header-rule-create.json' with { type: 'json' };
import ipRule from '../../schemas/api/ip-rule-create.json' with { type: 'json' };
import noControlCharacters from '../../schemas/api/no-control-characters.json' with { type: 'json' };
import origin from '../../schemas/api/origin-request.json' with { type: 'json' };
import pageRule from '../../schemas/api/page-rule-create.json' with { type: 'json' };
import rateLimitRule from '../../schemas/api/rate-limit-rule-create.json' with { type: 'json' };
import redirectRule from '../../schemas/api/redirect-rule-create.json' with { type: 'json' };
import ruleMatch from '../../schemas/api/rule-match.json' with { type: 'json' };
import sslRequest from '../../schemas/api/ssl-certificate-request.json' with { type: 'json' };
import sslSettings from '../../schemas/api/ssl-settings-create.json' with { type: 'json' };
import wafRule from '../../schemas/api/waf-rule-create.json' with { type: 'json' };
import { SETTINGS, type SettingDefinition } from '../shared/settings-definitions.js';

// The API's own JSON Schemas (schemas/api), bundled into the dashboard: its forms take their fixed
// choices, bounds and required fields from what the API validates with, never from a copy.

/** The part of a JSON Schema the forms read. */
export type Schema = {
  type?: string | string[];
  enum?: readonly (string | number)[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  default?: unknown;
  description?: string;
  required?: readonly string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  $ref?: string;
  $defs?: Record<string, Schema>;
};

/** What a form needs to know about one field: its type, fixed choices, bounds, and whether it may be empty. */
export type FieldRule = {
  type: 'string' | 'integer' | 'boolean' | 'array' | 'object';
  options?: readonly (string | number)[];
  min?: number;
  max?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  nullable: boolean;
  required: boolean;
  defaultValue?: unknown;
  description?: string;
  items?: FieldRule;
};

const BY_ID: Record<string, Schema> = { 'rule-match': ruleMatch as Schema, 'no-control-characters': noControlCharacters as Schema };

/** The create schema of each rule kind, by its API path segment. */
export const RULE_SCHEMAS: Record<string, Schema> = {
  redirects: redirectRule as Schema,
  'rate-limits': rateLimitRule as Schema,
  'waf-rules': wafRule as Schema,
  headers: headerRule as Schema,
  'ip-rules': ipRule as Schema,
  'cache-rules': cacheRule as Schema,
  'page-rules': pageRule as Schema,
};

/** A schema with its `$ref` (another schema's $id, or `#/$defs/x` of rule-match) merged in; its own keywords win. */
function resolved(schema: Schema): Schema {
  if (!schema.$ref) return schema;
  const target = schema.$ref.startsWith('#/$defs/') ? ruleMatch.$defs[schema.$ref.slice(8) as keyof typeof ruleMatch.$defs] : BY_ID[schema.$ref];
  const { $ref: _ref, ...own } = schema;
  return { ...resolved(target as Schema), ...own };
}

function ruleOf(schema: Schema, required: boolean): FieldRule {
  const types = [schema.type ?? 'object'].flat();
  return {
    type: (types.find((type) => type !== 'null') ?? 'string') as FieldRule['type'],
    options: schema.enum,
    min: schema.minimum,
    max: schema.maximum,
    minLength: schema.minLength,
    maxLength: schema.maxLength,
    pattern: schema.pattern,
    nullable: types.includes('null'),
    required,
    defaultValue: schema.default,
    description: schema.description,
    items: schema.items ? ruleOf(resolved(schema.items), true) : undefined,
  };
}

/**
 * The rule of the field at a dotted path of a schema (`cache_key.query_strings.mode`,
 * `match.paths.0.value`: a number steps into an array's items), or undefined when the schema has
 * no such field. Required means required wherever its parent object is present.
 */
export function fieldRule(schema: Schema, path: string): FieldRule | undefined {
  let node = resolved(schema);
  let required = false;
  for (const name of path.split('.')) {
    const index = /^\d+$/.test(name);
    const child = index ? node.items : node.properties?.[name];
    if (!child) return undefined;
    required = index || (node.required?.includes(name) ?? false);
    node = resolved(child);
  }
  return ruleOf(node, required);
}

/** The rules of a flat schema's fields (SSL or cache settings, an origin), by key. */
export function fieldRules(schema: Schema): Record<string, FieldRule> {
  return Object.fromEntries(Object.keys(schema.properties ?? {}).map((key) => [key, fieldRule(schema, key)!]));
}

function settingRule(definition: SettingDefinition): FieldRule {
  const base = { nullable: false, required: false, defaultValue: definition.default, description: definition.description };
  switch (definition.type) {
    case 'integer':
      return { ...base, type: 'integer', min: definition.min, max: definition.max };
    case 'boolean':
      return { ...base, type: 'boolean' };
    case 'enum':
      return { ...base, type: 'string', options: definition.values };
    case 'hostname':
      return { ...base, type: 'string' };
    default:
      return { ...base, type: 'array', items: { type: 'string', nullable: false, required: true } };
  }
}

/** The rules of a settings group's keys, from the definitions the API checks them with. */
export function settingRules(group: string): Record<string, FieldRule> {
  const definitions = (SETTINGS as Record<string, Record<string, SettingDefinition>>)[group] ?? {};
  return Object.fromEntries(Object.entries(definitions).map(([key, definition]) => [key, settingRule(definition)]));
}

export const SSL_SETTINGS_RULES = fieldRules(sslSettings as Schema);
export const SSL_REQUEST_RULES = fieldRules(sslRequest as Schema);
export const CACHE_SETTINGS_RULES = fieldRules(cacheSettings as Schema);
export const ORIGIN_RULES = fieldRules(origin as Schema);

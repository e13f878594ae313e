import { RULE_SCHEMA_IDS } from './rule-paths.js';

// Turns the API request schemas into the self-contained desired-state schemas
// (one file per document type, every reference local) that editors and the loader use.

type Schema = Record<string, any>;

const ID_BASE = 'https://schemas.cdn-control-plane.local/gitops/';

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value));
}

// Rewrites references to other API schemas (by $id) and to their own $defs into this document's $defs.
function localise(schema: Schema, owner: string): Schema {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== 'object') return node;
    const out: Schema = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') out.$ref = value.startsWith('#/$defs/') ? `#/$defs/${owner}-${value.slice(8)}` : `#/$defs/${value}`;
      else out[key] = walk(value);
    }
    return out;
  };
  return walk(schema) as Schema;
}

function definition(api: Record<string, Schema>, id: string): { body: Schema; defs: Record<string, Schema> } {
  const { $schema: _schema, $id: _id, $defs, ...body } = clone(api[id]);
  const defs = Object.fromEntries(Object.entries(($defs ?? {}) as Record<string, Schema>).map(([name, def]) => [`${id}-${name}`, localise(def, id)]));
  return { body: localise(body, id), defs };
}

function listOf(ref: string, description: string): Schema {
  return { type: 'array', description, items: { $ref: `#/$defs/${ref}` } };
}

/** The desired-state schemas, keyed by file name, built from the API schemas keyed by $id. */
export function buildGitopsSchemas(api: Record<string, Schema>): Record<string, Schema> {
  const defs: Record<string, Schema> = {};
  const use = (id: string) => {
    const { body, defs: nested } = definition(api, id);
    Object.assign(defs, nested, { [id]: body });
  };
  for (const id of ['no-control-characters', 'rule-match', ...Object.values(RULE_SCHEMA_IDS), 'dns-record-create', 'origin-request', 'cache-settings', 'routing-settings', 'ssl-settings-create']) use(id);

  defs.record = defs['dns-record-create'];
  defs.origin = { ...defs['origin-request'], required: ['host'] };
  delete defs['dns-record-create'];
  delete defs['origin-request'];
  const geoRoute = localise(clone(api['geo-routes-put'].properties.routes.items), 'geo-routes-put');
  defs['geo-route-set'] = {
    type: 'object',
    additionalProperties: false,
    required: ['record', 'routes'],
    description: 'The geo routes of one A/AAAA/CNAME record, named by its relative name (and type when the name has several).',
    properties: { record: { type: 'string', minLength: 1, maxLength: 253 }, type: { type: 'string', enum: ['A', 'AAAA', 'CNAME'] }, routes: { type: 'array', items: geoRoute } },
  };
  const { required: _required, ...routing } = defs['routing-settings'];
  delete defs['routing-settings'];
  // A file that leaves routing_mode (or the whole routing section) out wants geo, what the API gives a new domain.
  defs.routing = {
    ...routing,
    properties: {
      ...routing.properties,
      routing_mode: { ...routing.properties.routing_mode, default: 'geo' },
      anycast_ipv4: { type: 'array', items: { type: 'string' } },
      anycast_ipv6: { type: 'array', items: { type: 'string' } },
    },
  };
  defs.secret = { $ref: '#/$defs/no-control-characters', type: 'string', description: 'A literal, or ${ENV_VAR} to read it from the environment of the reconciler (never printed).' };

  const domainCreate = localise(clone(api['domain-create'].properties), 'domain-create');
  const domain: Schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${ID_BASE}domain.schema.json`,
    title: 'Desired state of one domain (domains/<apex>.yaml)',
    type: 'object',
    additionalProperties: false,
    required: ['domain'],
    properties: {
      domain: { ...domainCreate.domain, description: 'The apex; must match the file name.' },
      name: domainCreate.name,
      display_name: domainCreate.display_name,
      zone_name: domainCreate.zone_name,
      origin_shield: {
        type: 'object',
        additionalProperties: false,
        properties: { header_name: domainCreate.origin_shield_header_name, secret: { $ref: '#/$defs/secret' } },
      },
      policy: {
        type: 'object',
        default: {},
        additionalProperties: false,
        description: 'How the reconciler treats this domain.',
        properties: {
          prune: { type: 'boolean', default: true, description: 'Delete live items that are not in this file.' },
          self_heal: { type: 'boolean', default: false, description: 'Revert changes made through the API to items this file owns (otherwise they are reported as drift).' },
        },
      },
      routing: { $ref: '#/$defs/routing', default: {} },
      records: listOf('record', 'DNS records; identity: type, name and content.'),
      geo_routes: listOf('geo-route-set', 'Geo routes per record.'),
      origins: listOf('origin', 'Origins; identity: scheme, host and port.'),
      cache: { $ref: '#/$defs/cache-settings' },
      ssl: { $ref: '#/$defs/ssl-settings-create' },
      ...Object.fromEntries(Object.entries(RULE_SCHEMA_IDS).map(([section, id]) => [section, listOf(id, `${section.replace('_', ' ')}; identity: name.`)])),
    },
    $defs: defs,
  };

  const repository: Schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${ID_BASE}repository.schema.json`,
    title: 'Repository settings (cdn-gitops.yaml at the root of the desired-state directory)',
    type: 'object',
    additionalProperties: false,
    properties: {
      delete_removed_domains: { type: 'boolean', default: false, description: 'Delete a live domain whose file was removed (otherwise it is reported as orphaned).' },
      max_delete_percent: { type: 'integer', minimum: 0, maximum: 100, default: 25, description: 'Refuse a plan that deletes more than this share of live items, unless forced.' },
      min_live_items: { type: 'integer', minimum: 0, maximum: 1000000, default: 10, description: 'max_delete_percent applies only to plans covering at least this many live items (domains, records, geo route sets, origins, rules), so a small domain can change.' },
      owned_domains: { type: 'array', items: { type: 'string' }, description: 'Apexes this repository owned before; used to tell orphaned domains from foreign ones.' },
    },
  };

  const settings: Schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${ID_BASE}settings.schema.json`,
    title: 'Platform settings (settings/<group>.yaml): the keys of one settings group',
    type: 'object',
    additionalProperties: true,
  };
  return { 'domain.schema.json': domain, 'repository.schema.json': repository, 'settings.schema.json': settings };
}

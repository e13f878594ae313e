import { GROUPS, SETTINGS, type SettingDefinition } from '../../src/features/settings/registry.js';
import type { Json, TestCore } from '../support/core.js';

type Params = Record<string, string>;

/**
 * How the PATCH sweep exercises one PATCH route: it creates a fresh resource whose
 * defaulted fields all hold non-default values, reads it, patches one field and reads it again.
 */
export type PatchFixture = {
  /** The create schema whose defaults the fresh resource must differ from. */
  createSchema?: string;
  /** Set up once per route (a parent domain); its result is handed to `create`. */
  parent?: (core: TestCore) => Promise<Params>;
  /** Path parameters the route is swept with one by one (settings groups); one sweep with none when absent. */
  variants?: Params[];
  /** Creates a fresh resource (`override` is merged into its create body) and returns the path parameters that address it. */
  create: (core: TestCore, parent: Params, n: number, override: Record<string, unknown>) => Promise<Params>;
  /** The resource as the API shows it. */
  read: (core: TestCore, params: Params) => Promise<Json>;
  /** The patchable fields of a free-form body; schema-backed routes take their schema's properties. */
  fields?: (params: Params) => string[];
  /** Values to patch fields to; booleans, enums and integers are derived from the schema when absent. */
  values?: Record<string, unknown>;
  /** Create-body overrides that make patching a field legal on its own (cross-field rules). */
  fresh?: Record<string, Record<string, unknown>>;
  /** Output fields that are derived from a patched field and legitimately follow it. */
  follows?: Record<string, string[]>;
};

let counter = 0;
const next = () => ++counter;

async function newDomain(core: TestCore, extra: Record<string, unknown> = {}): Promise<string> {
  return (await core.createDomain(`d${next()}.patch-sweep.example`, extra)).id;
}

const ONE_DOMAIN = async (core: TestCore) => ({ domainId: await newDomain(core) });

function child(collection: string, idParam: string, body: (n: number) => Record<string, unknown>) {
  return {
    parent: ONE_DOMAIN,
    create: async (core: TestCore, parent: Params, n: number, override: Record<string, unknown>) => {
      const created = (await core.post(`/api/v1/domains/${parent.domainId}/${collection}`, { ...body(n), ...override }, 201)).data;
      return { ...parent, [idParam]: created.id };
    },
    read: async (core: TestCore, params: Params) => {
      const list = (await core.get(`/api/v1/domains/${params.domainId}/${collection}?limit=500`)).data as Json[];
      return list.find((item) => item.id === params[idParam]);
    },
  };
}

const RULE_BASE = (n: number) => ({ name: `rule ${n}`, enabled: false, priority: 5, match: { paths: [{ kind: 'prefix', value: '/a' }] } });
const RULE_VALUES = { name: 'renamed rule', match: { paths: [{ kind: 'exact', value: '/c' }] } };

function ruleFixture(kind: string, schema: string, body: Record<string, unknown>, extra: Partial<PatchFixture> = {}): [string, PatchFixture] {
  return [
    `/api/v1/domains/:domainId/${kind}/:ruleId`,
    { createSchema: `${schema}-create`, ...child(kind, 'ruleId', (n) => ({ ...RULE_BASE(n), ...body })), ...extra, values: { ...RULE_VALUES, ...extra.values } },
  ];
}

// A value other than the default (base) and another one still (patch) for each kind of setting.
function settingValues(definition: SettingDefinition): { base: unknown; patch: unknown } {
  switch (definition.type) {
    case 'integer':
      return { base: definition.min === definition.default ? definition.min + 1 : definition.min, patch: definition.max };
    case 'boolean':
      return { base: !definition.default, patch: definition.default };
    case 'enum':
      return { base: definition.values.find((value) => value !== definition.default), patch: definition.default };
    case 'hostname':
      return { base: 'base.patch-sweep.example', patch: 'patched.patch-sweep.example' };
    case 'hostnames':
      return { base: ['ns1.patch-sweep.example'], patch: ['ns2.patch-sweep.example'] };
    case 'ipv4_list':
      return { base: ['192.0.2.1'], patch: ['192.0.2.2'] };
    case 'ipv6_list':
      return { base: ['2001:db8::1'], patch: ['2001:db8::2'] };
    case 'labels':
      return { base: ['canary'], patch: ['eu-west'] };
  }
}

function definitionsOf(group: string): Record<string, SettingDefinition> {
  return (SETTINGS as Record<string, Record<string, SettingDefinition>>)[group];
}

/** Every PATCH route of the core by its path pattern. The sweep fails for a PATCH route missing here. */
export const PATCH_FIXTURES: Record<string, PatchFixture> = Object.fromEntries([
  [
    '/api/v1/domains/:domainId',
    {
      create: async (core, _parent, n, override) => ({
        domainId: (await core.createDomain(`fresh${n}.patch-sweep.example`, { name: 'Fixture', display_name: 'Fixture domain', origin_shield_header_name: 'X-Shield', origin_shield_secret: 'shield-secret-1', ...override })).id,
      }),
      read: async (core, params) => (await core.get(`/api/v1/domains/${params.domainId}`)).data,
      values: { domain: 'moved.patch-sweep.example', name: 'Renamed', display_name: 'Other', status: 'disabled', origin_shield_header_name: 'X-Other', origin_shield_secret: 'shield-secret-2' },
      follows: { domain: ['zone_name'] },
    },
  ],
  [
    '/api/v1/domains/:domainId/dns/records/:recordId',
    {
      createSchema: 'dns-record-create',
      ...child('dns/records', 'recordId', (n) => ({ type: 'CNAME', name: `r${n}`, content: 'target.example.net', ttl: 600, proxied: true, routing_policy: 'geo', enabled: false, comment: 'fixture' })),
      values: { type: 'NS', name: 'renamed', content: 'other.example.net', comment: 'changed' },
      fresh: { type: { proxied: false, routing_policy: 'simple' } },
      follows: { name: ['fqdn'] },
    },
  ],
  [
    '/api/v1/domains/:domainId/routing',
    {
      create: async (core) => {
        const domainId = await newDomain(core);
        await core.patch(`/api/v1/domains/${domainId}/routing`, { routing_mode: 'anycast', geo_health_port: 8080, anycast_ipv4: '192.0.2.10', anycast_ipv6: '2001:db8::10' });
        return { domainId };
      },
      read: async (core, params) => (await core.get(`/api/v1/domains/${params.domainId}/routing`)).data,
      values: { anycast_ipv4: '192.0.2.11', anycast_ipv6: '2001:db8::11' },
    },
  ],
  [
    '/api/v1/domains/:domainId/origins/:originId',
    {
      createSchema: 'origin-request',
      ...child('origins', 'originId', (n) => ({
        host: `o${n}.example.net`,
        scheme: 'http',
        port: 8080,
        role: 'backup',
        enabled: false,
        host_header: 'hh.example.net',
        health_check_path: '/hc',
        weight: 70,
        drained: true,
        monitored: true,
        max_retries: 3,
        retry_non_idempotent: true,
        retry_budget_percent: 50,
        retry_budget_min_per_second: 9,
        circuit_breaker_enabled: false,
        circuit_breaker_failure_threshold: 7,
        circuit_breaker_window_seconds: 40,
        circuit_breaker_cooldown_seconds: 45,
        max_connections: 200,
        max_pending_requests: 20,
        connect_timeout_ms: 1500,
        read_timeout_ms: 9000,
        shield: true,
        shield_region: 'eu-west',
      })),
      values: { host: 'moved.example.net', host_header: 'other.example.net', health_check_path: '/other', shield_region: 'us-east' },
    },
  ],
  ruleFixture('redirects', 'redirect-rule', { target: '/b', status_code: 302, preserve_query: false, preserve_path: true }, { values: { target: '/d' } }),
  ruleFixture(
    'rate-limits',
    'rate-limit-rule',
    { requests: 10, period_seconds: 30, key: 'header', key_header: 'X-Key', action: 'challenge', block_seconds: 120, challenge_difficulty: 3 },
    { values: { key_header: 'X-Other' }, fresh: { key: { key: 'ip_path', key_header: null }, action: { challenge_difficulty: null } } },
  ),
  ruleFixture('waf-rules', 'waf-rule', { action: 'challenge', challenge_difficulty: 2, signatures: ['sqli'] }, { values: { signatures: ['xss'] }, fresh: { action: { challenge_difficulty: null } } }),
  ruleFixture('headers', 'header-rule', { phase: 'request', operation: 'add', header_name: 'X-Fixture', value: 'v1' }, { values: { header_name: 'x-other', value: 'v2' } }),
  ruleFixture('ip-rules', 'ip-rule', { cidr: '192.0.2.0/24', action: 'allow' }, { values: { cidr: '198.51.100.0/24' } }),
  ruleFixture(
    'cache-rules',
    'cache-rule',
    { action: 'bypass', browser_ttl_seconds: 60, cache_key: { query_strings: { mode: 'none' } }, stale_if_error_seconds: 30, cache_private: true },
    { values: { cache_key: { cookies: ['session'] } }, fresh: { edge_ttl_seconds: { action: 'cache' }, stale_while_revalidate_seconds: { action: 'cache' } } },
  ),
  ruleFixture('page-rules', 'page-rule', { url_pattern: 'www.example.com/a/*', settings: { cache_level: 'bypass' } }, { values: { url_pattern: 'static.example.com/*', settings: { forwarding_url: { url: 'https://x.example/' } } } }),
  [
    '/api/v1/domains/:domainId/ssl/settings',
    {
      createSchema: 'ssl-settings-create',
      create: async (core) => {
        const domainId = await newDomain(core);
        await core.patch(`/api/v1/domains/${domainId}/ssl/settings`, { mode: 'strict', automatic: false, always_https: true, min_tls_version: '1.3', hsts_enabled: true, hsts_max_age: 600 });
        return { domainId };
      },
      read: async (core, params) => (await core.get(`/api/v1/domains/${params.domainId}/ssl`)).data.settings,
    },
  ],
  [
    '/api/v1/settings/:group',
    {
      // Settings are global: "fresh" sets every key of the group to a non-default value.
      variants: GROUPS.map((group) => ({ group })),
      create: async (core, parent) => {
        const group = parent.group;
        const base = Object.fromEntries(Object.entries(definitionsOf(group)).map(([key, definition]) => [key, settingValues(definition).base]));
        await core.patch(`/api/v1/settings/${group}`, base);
        return { group };
      },
      read: async (core, params) => (await core.get(`/api/v1/settings/${params.group}`)).data,
      fields: (params) => Object.keys(definitionsOf(params.group)),
      values: Object.fromEntries(Object.values(SETTINGS).flatMap((group) => Object.entries(group).map(([key, definition]) => [key, settingValues(definition).patch]))),
    },
  ],
] satisfies [string, PatchFixture][]);

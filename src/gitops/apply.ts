import type { ApiClient } from './api-client.js';
import type { LiveDomain } from './live.js';
import { RULE_PATHS } from './rule-paths.js';
import type { DomainModel, Item } from './model.js';
import { recordName, topField, type Change, type DomainPlan } from './plan.js';
import { resolveSecret } from './secrets.js';
import { RULE_SECTIONS } from './spec.js';

export type DomainResult = { domain: string; ok: boolean; applied: number; error?: string };

/** One write of POST /api/v1/batch; `ref` names its result's id for later paths (`@{ref}`). */
export type Operation = { ref?: string; method: 'POST' | 'PUT' | 'PATCH' | 'DELETE'; path: string; body?: Item };

// The top-level fields a change touches, with their whole desired values (a PATCH replaces a field whole).
function changed(change: Change): Item {
  return Object.fromEntries(change.fields.map((field) => topField(field.field)).map((field) => [field, change.desired![field]]));
}

function domainBody(fields: Item, env: NodeJS.ProcessEnv): Item {
  const body = { ...fields };
  if (typeof body.origin_shield_secret === 'string') body.origin_shield_secret = resolveSecret(body.origin_shield_secret, env);
  return body;
}

function routingBody(routing: Item): Item {
  const body: Item = { ...routing };
  for (const family of ['anycast_ipv4', 'anycast_ipv6']) if (Array.isArray(body[family])) body[family] = (body[family] as string[]).join(',') || null;
  return body;
}

function of(changes: Change[], resource: Change['resource'], action?: Change['action']): Change[] {
  return changes.filter((change) => change.resource === resource && (!action || change.action === action));
}

function geoRouteBody(change: Change): Item {
  return { routes: change.action === 'delete' ? [] : (change.desired!.routes as Item[]).map(({ code, ...route }) => (code ? { ...route, code } : route)) };
}

// Records (deletes first, so a CNAME can replace other records), then their geo routes, which
// name a record by id: a live one, or one this batch creates (a ref).
function recordOperations(changes: Change[], base: string, live: LiveDomain | undefined): Operation[] {
  const operations: Operation[] = [];
  const deleted = new Set(of(changes, 'record', 'delete').map((change) => `record ${change.key}`));
  const recordIds = new Map<string, string>();
  for (const [key, id] of live?.ids ?? []) if (key.startsWith('record ') && !deleted.has(key)) recordIds.set(recordName(key.slice('record '.length)), id);
  for (const key of deleted) operations.push({ method: 'DELETE', path: `${base}/dns/records/${live!.ids.get(key)}` });
  of(changes, 'record', 'create').forEach((change, index) => {
    operations.push({ ref: `record${index}`, method: 'POST', path: `${base}/dns/records`, body: change.desired });
    recordIds.set(recordName(change.key), `@{record${index}}`);
  });
  for (const change of of(changes, 'record', 'update')) {
    const id = live!.ids.get(`record ${change.was ?? change.key}`)!;
    operations.push({ method: 'PATCH', path: `${base}/dns/records/${id}`, body: changed(change) });
    recordIds.set(recordName(change.key), id);
  }
  for (const change of of(changes, 'geo_routes')) {
    const id = recordIds.get(change.key);
    if (change.action === 'delete' && !id) continue;
    if (!id) throw new Error(`no record for the geo routes of ${change.key}`);
    operations.push({ method: 'PUT', path: `${base}/dns/records/${id}/geo-routes`, body: geoRouteBody(change) });
  }
  return operations;
}

function ruleOperations(changes: Change[], base: string, live: LiveDomain | undefined): Operation[] {
  return RULE_SECTIONS.flatMap((section) => {
    const path = `${base}/${RULE_PATHS[section]}`;
    const id = (change: Change) => live!.ids.get(`${section} ${change.key}`);
    return [
      ...of(changes, section, 'create').map((change): Operation => ({ method: 'POST', path, body: change.desired })),
      ...of(changes, section, 'update').map((change): Operation => ({ method: 'PATCH', path: `${path}/${id(change)}`, body: changed(change) })),
      ...of(changes, section, 'delete').map((change): Operation => ({ method: 'DELETE', path: `${path}/${id(change)}` })),
    ];
  });
}

/**
 * The writes that make one domain match its plan, in dependency order: the domain,
 * origins, records, geo routes, routing, cache, SSL, rules, then origin deletes. Ids the
 * batch creates (the domain, new records) are named by refs, so the whole domain is one batch.
 */
export function domainOperations(plan: DomainPlan, desired: DomainModel, live: LiveDomain | undefined, env: NodeJS.ProcessEnv): Operation[] {
  const { changes } = plan;
  const base = live ? `/api/v1/domains/${live.id}` : '/api/v1/domains/@{domain}';
  const originId = (change: Change) => live!.ids.get(`origin ${change.key}`);
  return [
    ...(plan.action === 'create' ? [{ ref: 'domain', method: 'POST', path: '/api/v1/domains', body: domainBody({ domain: desired.apex, ...desired.fields }, env) } as Operation] : []),
    ...of(changes, 'domain', 'update').map((change): Operation => ({ method: 'PATCH', path: base, body: domainBody(changed(change), env) })),
    ...of(changes, 'origin', 'create').map((change): Operation => ({ method: 'POST', path: `${base}/origins`, body: change.desired })),
    ...of(changes, 'origin', 'update').map((change): Operation => ({ method: 'PATCH', path: `${base}/origins/${originId(change)}`, body: changed(change) })),
    ...recordOperations(changes, base, live),
    ...of(changes, 'routing').map((change): Operation => ({ method: 'PATCH', path: `${base}/routing`, body: routingBody(change.desired!) })),
    ...of(changes, 'cache').map((change): Operation => ({ method: 'PUT', path: `${base}/cache/settings`, body: change.desired })),
    ...of(changes, 'ssl').map((change): Operation => ({ method: 'PATCH', path: `${base}/ssl/settings`, body: changed(change) })),
    ...ruleOperations(changes, base, live),
    ...of(changes, 'origin', 'delete').map((change): Operation => ({ method: 'DELETE', path: `${base}/origins/${originId(change)}` })),
  ];
}

/**
 * Applies one domain's plan as one batch (one transaction in the core): it is applied
 * whole or, on the first refused write, not at all, and the refusal is reported.
 */
export async function applyDomainPlan(client: ApiClient, plan: DomainPlan, desired: DomainModel | undefined, live: LiveDomain | undefined, env: NodeJS.ProcessEnv): Promise<DomainResult> {
  try {
    if (plan.action === 'unchanged' || plan.action === 'orphaned') return { domain: plan.domain, ok: true, applied: 0 };
    const operations: Operation[] = plan.action === 'delete' ? [{ method: 'DELETE', path: `/api/v1/domains/${live!.id}` }] : domainOperations(plan, desired!, live, env);
    if (!operations.length) return { domain: plan.domain, ok: true, applied: 0 };
    await client.request('POST', '/api/v1/batch', { operations });
    return { domain: plan.domain, ok: true, applied: operations.length };
  } catch (error) {
    return { domain: plan.domain, ok: false, applied: 0, error: (error as Error).message };
  }
}

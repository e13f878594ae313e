import type { ApiClient } from './api-client.js';
import type { LiveDomain } from './live.js';
import { RULE_PATHS } from './rule-paths.js';
import type { DomainModel, Item } from './model.js';
import type { Change, DomainPlan } from './plan.js';
import { resolveSecret } from './secrets.js';
import { RULE_SECTIONS, type RuleSection } from './spec.js';

export type DomainResult = { domain: string; ok: boolean; applied: number; error?: string };

type Context = { client: ApiClient; base: string; ids: Map<string, string>; env: NodeJS.ProcessEnv; progress: { applied: number } };

function changed(change: Change): Item {
  return Object.fromEntries(change.fields.map((field) => [field.field, change.desired![field.field]]));
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

async function call(context: Context, method: string, path: string, body?: unknown): Promise<any> {
  const result = await context.client.request(method, `${context.base}${path}`, body);
  context.progress.applied++;
  return result;
}

function of(changes: Change[], resource: Change['resource'], action?: Change['action']): Change[] {
  return changes.filter((change) => change.resource === resource && (!action || change.action === action));
}

async function applyRecords(context: Context, changes: Change[]): Promise<void> {
  // Deletes first: a CNAME may replace other records at the same name.
  for (const change of of(changes, 'record', 'delete')) {
    await call(context, 'DELETE', `/dns/records/${context.ids.get(`record ${change.key}`)}`);
    context.ids.delete(`record ${change.key}`);
  }
  for (const change of of(changes, 'record', 'create')) {
    const record = (await call(context, 'POST', '/dns/records', change.desired)).data;
    context.ids.set(`record ${change.key}`, record.id);
  }
  for (const change of of(changes, 'record', 'update')) await call(context, 'PATCH', `/dns/records/${context.ids.get(`record ${change.key}`)}`, changed(change));
}

function recordIdFor(context: Context, geoKey: string): string | undefined {
  for (const [key, id] of context.ids) if (key.startsWith('record ') && `${key.split(' ')[1]} ${key.split(' ')[2]}` === geoKey) return id;
  return undefined;
}

async function applyGeoRoutes(context: Context, changes: Change[]): Promise<void> {
  const deletedRecords = new Set(of(changes, 'record', 'delete').map((change) => change.key.split(' ').slice(0, 2).join(' ')));
  for (const change of of(changes, 'geo_routes')) {
    if (change.action === 'delete' && deletedRecords.has(change.key)) continue;
    const id = recordIdFor(context, change.key);
    if (!id) throw new Error(`no record for the geo routes of ${change.key}`);
    await call(context, 'PUT', `/dns/records/${id}/geo-routes`, { routes: change.action === 'delete' ? [] : (change.desired!.routes as Item[]).map(({ code, ...route }) => (code ? { ...route, code } : route)) });
  }
}

async function applyRules(context: Context, changes: Change[]): Promise<void> {
  for (const section of RULE_SECTIONS as readonly RuleSection[]) {
    const path = `/${RULE_PATHS[section]}`;
    for (const change of of(changes, section, 'create')) await call(context, 'POST', path, change.desired);
    for (const change of of(changes, section, 'update')) await call(context, 'PATCH', `${path}/${context.ids.get(`${section} ${change.key}`)}`, changed(change));
    for (const change of of(changes, section, 'delete')) await call(context, 'DELETE', `${path}/${context.ids.get(`${section} ${change.key}`)}`);
  }
}

async function applyOrigins(context: Context, changes: Change[], action: 'upsert' | 'delete'): Promise<void> {
  if (action === 'delete') {
    for (const change of of(changes, 'origin', 'delete')) await call(context, 'DELETE', `/origins/${context.ids.get(`origin ${change.key}`)}`);
    return;
  }
  for (const change of of(changes, 'origin', 'create')) await call(context, 'POST', '/origins', change.desired);
  for (const change of of(changes, 'origin', 'update')) await call(context, 'PATCH', `/origins/${context.ids.get(`origin ${change.key}`)}`, changed(change));
}

async function ensureDomain(client: ApiClient, plan: DomainPlan, desired: DomainModel, live: LiveDomain | undefined, env: NodeJS.ProcessEnv): Promise<{ id: string; applied: number }> {
  if (plan.action === 'create') {
    const created = (await client.request('POST', '/api/v1/domains', domainBody({ domain: desired.apex, ...desired.fields }, env))).data;
    return { id: created.id, applied: 1 };
  }
  const update = of(plan.changes, 'domain', 'update')[0];
  if (update) await client.request('PATCH', `/api/v1/domains/${live!.id}`, domainBody(changed(update), env));
  return { id: live!.id, applied: update ? 1 : 0 };
}

/**
 * Applies one domain's plan through the API in dependency order: the domain,
 * origins, records (deletes first), geo routes, routing, cache, SSL, rules, then
 * origin deletes. Stops at the first failure of this domain and reports it.
 */
export async function applyDomainPlan(client: ApiClient, plan: DomainPlan, desired: DomainModel | undefined, live: LiveDomain | undefined, env: NodeJS.ProcessEnv): Promise<DomainResult> {
  const progress = { applied: 0 };
  try {
    if (plan.action === 'delete') {
      await client.request('DELETE', `/api/v1/domains/${live!.id}`);
      return { domain: plan.domain, ok: true, applied: 1 };
    }
    if (plan.action === 'unchanged' || plan.action === 'orphaned' || !desired) return { domain: plan.domain, ok: true, applied: 0 };
    const domain = await ensureDomain(client, plan, desired, live, env);
    const context: Context = { client, base: `/api/v1/domains/${domain.id}`, ids: new Map(live?.ids ?? []), env, progress };
    progress.applied = domain.applied;
    await applyOrigins(context, plan.changes, 'upsert');
    await applyRecords(context, plan.changes);
    await applyGeoRoutes(context, plan.changes);
    for (const change of of(plan.changes, 'routing')) await call(context, 'PATCH', '/routing', routingBody(change.desired!));
    for (const change of of(plan.changes, 'cache')) await call(context, 'PUT', '/cache/settings', change.desired);
    for (const change of of(plan.changes, 'ssl')) await call(context, 'PATCH', '/ssl/settings', changed(change));
    await applyRules(context, plan.changes);
    await applyOrigins(context, plan.changes, 'delete');
    return { domain: plan.domain, ok: true, applied: progress.applied };
  } catch (error) {
    return { domain: plan.domain, ok: false, applied: progress.applied, error: (error as Error).message };
  }
}

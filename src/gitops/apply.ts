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

/** The most a batch takes (10,000 operations; 16 MiB by default), with room to spare for the bytes. */
export type BatchLimits = { operations: number; bytes: number };
const BATCH_LIMITS: BatchLimits = { operations: 10000, bytes: 8 * 1024 * 1024 };
const REF = /@\{([A-Za-z0-9_-]{1,64})\}/g;

/** A batch after the first of a domain's was refused: the writes of the batches before it stay applied. */
class PartlyAppliedError extends Error {
  constructor(
    readonly applied: number,
    message: string,
  ) {
    super(message);
  }
}

// Consecutive operations cut into batches within the limits, in order.
function inParts(operations: Operation[], limits: BatchLimits): Operation[][] {
  const parts: Operation[][] = [];
  let bytes = 0;
  for (const operation of operations) {
    const size = Buffer.byteLength(JSON.stringify(operation));
    const current = parts.at(-1);
    if (current && current.length < limits.operations && bytes + size <= limits.bytes) {
      current.push(operation);
      bytes += size;
    } else {
      parts.push([operation]);
      bytes = size;
    }
  }
  return parts;
}

/**
 * Sends a domain's writes as one batch, or, past the batch limits, as consecutive batches whose
 * refs to ids an earlier batch created are filled in. Returns how many writes were applied; a
 * refused batch throws, naming its part when there are several (the parts before it stay applied).
 */
export async function sendBatches(client: ApiClient, operations: Operation[], limits: BatchLimits = BATCH_LIMITS): Promise<number> {
  const parts = inParts(operations, limits);
  const ids = new Map<string, string>();
  for (const [index, part] of parts.entries()) {
    const resolved = part.map((operation) => ({ ...operation, path: operation.path.replace(REF, (ref, name: string) => ids.get(name) ?? ref) }));
    try {
      const { results } = (await client.request<{ data: { results: { body?: { data?: { id?: unknown } } }[] } }>('POST', '/api/v1/batch', { operations: resolved })).data;
      results.forEach((result, offset) => {
        const { ref } = part[offset];
        if (ref && typeof result.body?.data?.id === 'string') ids.set(ref, encodeURIComponent(result.body.data.id));
      });
    } catch (error) {
      if (parts.length === 1) throw error;
      const applied = parts.slice(0, index).flat().length;
      throw new PartlyAppliedError(applied, `part ${index + 1} of ${parts.length} (${applied} writes before it applied): ${(error as Error).message}`);
    }
  }
  return operations.length;
}

/**
 * Applies one domain's plan as one batch (one transaction in the core): it is applied
 * whole or, on the first refused write, not at all, and the refusal is reported. A change
 * set past the batch limits (10,000 writes) is applied in consecutive batches.
 */
export async function applyDomainPlan(client: ApiClient, plan: DomainPlan, desired: DomainModel | undefined, live: LiveDomain | undefined, env: NodeJS.ProcessEnv): Promise<DomainResult> {
  try {
    if (plan.action === 'unchanged' || plan.action === 'orphaned') return { domain: plan.domain, ok: true, applied: 0 };
    const operations: Operation[] = plan.action === 'delete' ? [{ method: 'DELETE', path: `/api/v1/domains/${live!.id}` }] : domainOperations(plan, desired!, live, env);
    if (!operations.length) return { domain: plan.domain, ok: true, applied: 0 };
    return { domain: plan.domain, ok: true, applied: await sendBatches(client, operations) };
  } catch (error) {
    return { domain: plan.domain, ok: false, applied: error instanceof PartlyAppliedError ? error.applied : 0, error: (error as Error).message };
  }
}

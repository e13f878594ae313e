import { isDeepStrictEqual } from 'node:util';
import type { DomainModel, Item } from './model.js';
import { RULE_SECTIONS } from './spec.js';

export type FieldChange = { field: string; before: unknown; after: unknown };
export type Resource = 'settings' | 'domain' | 'routing' | 'cache' | 'ssl' | 'record' | 'geo_routes' | 'origin' | (typeof RULE_SECTIONS)[number];
/**
 * One planned change; `follows` marks a change forced by another one (never drift), `was`
 * the live identity of an item whose identity changes with the update (a record's content).
 */
export type Change = { action: 'create' | 'update' | 'delete'; resource: Resource; key: string; fields: FieldChange[]; desired?: Item; follows?: string; was?: string };
export type Counts = { creates: number; updates: number; deletes: number; unchanged: number };
export type DomainPlan = { domain: string; action: 'create' | 'update' | 'unchanged' | 'orphaned' | 'delete'; changes: Change[]; counts: Counts; liveItems: number };
export type Plan = { settings: Change[]; domains: DomainPlan[]; counts: Counts };

export type PlanPolicy = { prune: boolean };

const SECRET_FIELDS = new Set(['origin_shield_secret']);

function zero(): Counts {
  return { creates: 0, updates: 0, deletes: 0, unchanged: 0 };
}

/** The fields of `desired` whose value differs from `live` (secrets compare only set/unset). */
export function fieldChanges(desired: Item, live: Item | undefined): FieldChange[] {
  return Object.entries(desired).flatMap(([field, after]) => {
    const before = live?.[field];
    if (after === undefined) return [];
    if (SECRET_FIELDS.has(field)) return (after === null) === (before === undefined || before === null) ? [] : [{ field, before: before ? '(set)' : null, after: after === null ? null : '(secret)' }];
    const same = isDeepStrictEqual(after, before) || ((after === null || after === undefined) && (before === null || before === undefined));
    return same ? [] : [{ field, before: before ?? null, after }];
  });
}

function diffMap(resource: Resource, desired: Map<string, Item>, live: Map<string, Item>, prune: boolean, counts: Counts): Change[] {
  const changes: Change[] = [];
  for (const [key, item] of desired) {
    const current = live.get(key);
    if (!current) {
      changes.push({ action: 'create', resource, key, fields: fieldChanges(item, undefined), desired: item });
      counts.creates++;
      continue;
    }
    const fields = fieldChanges(item, current);
    if (fields.length) {
      changes.push({ action: 'update', resource, key, fields, desired: item });
      counts.updates++;
    } else counts.unchanged++;
  }
  for (const key of live.keys()) {
    if (desired.has(key)) continue;
    if (prune) {
      changes.push({ action: 'delete', resource, key, fields: [] });
      counts.deletes++;
    } else counts.unchanged++;
  }
  return changes;
}

function diffSingle(resource: Resource, key: string, desired: Item | undefined, live: Item | undefined, counts: Counts): Change[] {
  if (!desired) return [];
  const fields = fieldChanges(desired, live);
  if (!fields.length) {
    counts.unchanged++;
    return [];
  }
  counts.updates++;
  return [{ action: 'update', resource, key, fields, desired }];
}

function itemCount(model: DomainModel): number {
  return model.records.size + model.origins.size + RULE_SECTIONS.reduce((sum, section) => sum + model.rules[section].size, 0);
}

// A geo-routed record whose content changes is deleted and created again, which drops its
// routes: they must be put on the new record even though the route set itself is unchanged.
function reattachGeoRoutes(desired: DomainModel, changes: Change[], counts: Counts): Change[] {
  const planned = new Set(changes.filter((change) => change.resource === 'geo_routes').map((change) => change.key));
  const recreated = new Set(changes.filter((change) => change.resource === 'record' && change.action === 'create').map((change) => change.key.split(' ').slice(0, 2).join(' ')));
  const extra: Change[] = [];
  for (const [key, routes] of desired.geoRoutes) {
    if (planned.has(key) || !recreated.has(key)) continue;
    extra.push({ action: 'update', resource: 'geo_routes', key, fields: [{ field: 'routes', before: '(on the replaced record)', after: routes.routes }], desired: routes, follows: `record ${key}` });
    counts.updates++;
    counts.unchanged--;
  }
  return extra;
}

/** The plan of one domain: what makes `live` (absent for a new domain) equal to `desired`. Pure. */
export function planDomain(desired: DomainModel, live: DomainModel | undefined, policy: PlanPolicy): DomainPlan {
  const counts = zero();
  const empty = new Map<string, Item>();
  const changes: Change[] = [];
  if (!live) {
    changes.push({ action: 'create', resource: 'domain', key: desired.apex, fields: fieldChanges(desired.fields, undefined), desired: desired.fields });
    counts.creates++;
  } else changes.push(...diffSingle('domain', desired.apex, desired.fields, live.fields, counts));
  changes.push(...diffSingle('routing', desired.apex, desired.routing, live?.routing, counts));
  changes.push(...diffSingle('cache', desired.apex, desired.cache, live?.cache, counts));
  changes.push(...diffSingle('ssl', desired.apex, desired.ssl, live?.ssl, counts));
  changes.push(...diffMap('origin', desired.origins, live?.origins ?? empty, policy.prune, counts));
  changes.push(...diffMap('record', desired.records, live?.records ?? empty, policy.prune, counts));
  changes.push(...diffMap('geo_routes', desired.geoRoutes, live?.geoRoutes ?? empty, policy.prune, counts));
  for (const section of RULE_SECTIONS) changes.push(...diffMap(section, desired.rules[section], live?.rules[section] ?? empty, policy.prune, counts));
  if (live) changes.push(...reattachGeoRoutes(desired, changes, counts));
  const action = !live ? 'create' : changes.length ? 'update' : 'unchanged';
  return { domain: desired.apex, action, changes, counts, liveItems: live ? itemCount(live) : 0 };
}

/** A plan for a live domain whose file is gone: deleted when the repository says so, else reported. */
export function planRemovedDomain(live: DomainModel, deleteIt: boolean): DomainPlan {
  const counts = zero();
  if (deleteIt) counts.deletes++;
  const changes: Change[] = deleteIt ? [{ action: 'delete', resource: 'domain', key: live.apex, fields: [] }] : [];
  return { domain: live.apex, action: deleteIt ? 'delete' : 'orphaned', changes, counts, liveItems: itemCount(live) };
}

/** The settings groups whose desired keys differ from the live values (groups not in the repository are left alone). */
export function planSettings(desired: Record<string, Item>, live: Record<string, Item>): Change[] {
  return Object.entries(desired).flatMap(([group, values]): Change[] => {
    const fields = fieldChanges(values, live[group]);
    return fields.length ? [{ action: 'update', resource: 'settings', key: group, fields, desired: values }] : [];
  });
}

/** Sums the settings changes and domain plans into one plan, domains sorted by name. */
export function combinePlans(settings: Change[], domains: DomainPlan[]): Plan {
  const counts = zero();
  counts.updates += settings.length;
  for (const plan of domains) for (const key of Object.keys(counts) as (keyof Counts)[]) counts[key] += plan.counts[key];
  return { settings, domains: [...domains].sort((a, b) => a.domain.localeCompare(b.domain)), counts };
}

/** Why the plan must not be applied without --force: it deletes more than `maxPercent` of the live items it covers. */
export function safetyProblem(plan: Plan, maxPercent: number): string | undefined {
  const live = plan.domains.reduce((sum, domain) => sum + domain.liveItems, 0);
  const deletes = plan.domains.reduce((sum, domain) => sum + domain.changes.filter((change) => change.action === 'delete' && change.resource !== 'domain').length + (domain.action === 'delete' ? domain.liveItems : 0), 0);
  if (live === 0 || deletes === 0) return undefined;
  const percent = (deletes / live) * 100;
  return percent > maxPercent ? `the plan deletes ${deletes} of ${live} live items (${percent.toFixed(0)}%), more than max_delete_percent ${maxPercent}%; use --force to apply it anyway` : undefined;
}

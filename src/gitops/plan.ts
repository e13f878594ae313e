import { isDeepStrictEqual } from 'node:util';
import { DEFAULT_PORT, type DomainModel, type Item } from './model.js';
import { fieldDefaults } from './schemas.js';
import { RULE_SECTIONS } from './spec.js';

/** One differing value: `field` is a path down to it (`match.paths[0].value`). */
export type FieldChange = { field: string; before: unknown; after: unknown };
export type Resource = 'settings' | 'domain' | 'routing' | 'cache' | 'ssl' | 'record' | 'geo_routes' | 'origin' | (typeof RULE_SECTIONS)[number];
/**
 * One planned change; `follows` marks a change forced by another one (never drift), `was`
 * the live identity of an item whose identity changes with the update (a record's content).
 */
export type Change = { action: 'create' | 'update' | 'delete'; resource: Resource; key: string; fields: FieldChange[]; desired?: Item; follows?: string; was?: string };
export type Counts = { creates: number; updates: number; deletes: number; unchanged: number };
/** A live item the file does not list, kept because the domain says `prune: false`. */
export type Unmanaged = { resource: Resource; key: string };
export type DomainPlan = { domain: string; action: 'create' | 'update' | 'unchanged' | 'orphaned' | 'delete'; changes: Change[]; counts: Counts; liveItems: number; unmanaged: Unmanaged[] };
export type Plan = { settings: Change[]; domains: DomainPlan[]; counts: Counts };

export type PlanPolicy = { prune: boolean };

const SECRET_FIELDS = new Set(['origin_shield_secret']);

function zero(): Counts {
  return { creates: 0, updates: 0, deletes: 0, unchanged: 0 };
}

function absent(value: unknown): boolean {
  return value === null || value === undefined;
}

function isPlainObject(value: unknown): value is Item {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Lists of objects: elements equal on both sides are unchanged; the rest are paired in order and
// diffed field by field, and what is left over is added or removed.
function diffLists(path: string, before: unknown[], after: unknown[], out: FieldChange[]): void {
  const unmatchedBefore = before.map((item, index) => ({ item, index })).filter(({ item }) => !after.some((candidate) => isDeepStrictEqual(candidate, item)));
  const unmatchedAfter = after.map((item, index) => ({ item, index })).filter(({ item }) => !before.some((candidate) => isDeepStrictEqual(candidate, item)));
  const paired = Math.min(unmatchedBefore.length, unmatchedAfter.length);
  for (let index = 0; index < paired; index++) diffValue(`${path}[${unmatchedAfter[index].index}]`, unmatchedBefore[index].item, unmatchedAfter[index].item, out);
  for (const { item, index } of unmatchedBefore.slice(paired)) out.push({ field: `${path}[${index}]`, before: item, after: null });
  for (const { item, index } of unmatchedAfter.slice(paired)) out.push({ field: `${path}[${index}]`, before: null, after: item });
}

/** Appends the differences between two values, down to their leaves (null and absent are equal). */
function diffValue(path: string, before: unknown, after: unknown, out: FieldChange[]): void {
  if (isDeepStrictEqual(before, after) || (absent(before) && absent(after))) return;
  if (isPlainObject(before) && isPlainObject(after)) {
    for (const key of new Set([...Object.keys(after), ...Object.keys(before)])) diffValue(`${path}.${key}`, before[key], after[key], out);
    return;
  }
  const listsOfObjects = Array.isArray(before) && Array.isArray(after) && [...before, ...after].some(isPlainObject);
  if (listsOfObjects) return diffLists(path, before as unknown[], after as unknown[], out);
  out.push({ field: path, before: before ?? null, after: after ?? null });
}

/** The fields of `desired` whose value differs from `live`, nested values diffed to their leaves (secrets compare only set/unset). */
export function fieldChanges(desired: Item, live: Item | undefined): FieldChange[] {
  const out: FieldChange[] = [];
  for (const [field, after] of Object.entries(desired)) {
    if (after === undefined) continue;
    const before = live?.[field];
    if (SECRET_FIELDS.has(field)) {
      if ((after === null) !== absent(before)) out.push({ field, before: before ? '(set)' : null, after: after === null ? null : '(secret)' });
      continue;
    }
    diffValue(field, before, after, out);
  }
  return out;
}

/** The top-level field a change of `path` belongs to (`match.paths[0].value` → `match`). */
export function topField(path: string): string {
  return path.split(/[.[]/)[0];
}

/** What a create shows: the fields the file sets, not those equal to the API's defaults or empty. */
export function createdFields(resource: string, item: Item): FieldChange[] {
  const defaults = resource === 'origin' ? { ...fieldDefaults(resource), port: DEFAULT_PORT[String(item.scheme)] } : fieldDefaults(resource);
  return Object.entries(item)
    .filter(([field, value]) => !absent(value) && !isDeepStrictEqual(value, defaults[field]) && !(isPlainObject(value) && Object.keys(value).length === 0))
    .map(([field, value]) => ({ field, before: null, after: SECRET_FIELDS.has(field) ? '(secret)' : value }));
}

function diffMap(resource: Resource, desired: Map<string, Item>, live: Map<string, Item>, policy: PlanPolicy, counts: Counts, unmanaged: Unmanaged[]): Change[] {
  const changes: Change[] = [];
  for (const [key, item] of desired) {
    const current = live.get(key);
    if (!current) {
      changes.push({ action: 'create', resource, key, fields: createdFields(resource, item), desired: item });
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
    if (policy.prune) {
      changes.push({ action: 'delete', resource, key, fields: [] });
      counts.deletes++;
    } else {
      unmanaged.push({ resource, key });
      counts.unchanged++;
    }
  }
  return changes;
}

/** The type and relative name of a record key (`A www 192.0.2.1` → `A www`). */
export function recordName(key: string): string {
  return key.split(' ').slice(0, 2).join(' ');
}

// A record whose content changed is one update, not a delete and a create: when a name and type
// lose exactly one record and gain exactly one, the two are paired (the record keeps its id and routes).
function pairRecordUpdates(changes: Change[], live: Map<string, Item>, counts: Counts): Change[] {
  const byName = new Map<string, { create: Change[]; delete: Change[] }>();
  for (const change of changes) {
    if (change.action === 'update') continue;
    const entry = byName.get(recordName(change.key)) ?? { create: [], delete: [] };
    entry[change.action].push(change);
    byName.set(recordName(change.key), entry);
  }
  const replaced = new Map<Change, Change>();
  const dropped = new Set<Change>();
  for (const { create, delete: deletes } of byName.values()) {
    if (create.length !== 1 || deletes.length !== 1) continue;
    const [created, deleted] = [create[0], deletes[0]];
    replaced.set(created, { action: 'update', resource: 'record', key: created.key, was: deleted.key, fields: fieldChanges(created.desired!, live.get(deleted.key)), desired: created.desired });
    dropped.add(deleted);
    counts.creates--;
    counts.deletes--;
    counts.updates++;
  }
  return changes.filter((change) => !dropped.has(change)).map((change) => replaced.get(change) ?? change);
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

// A new domain's routing, cache and SSL settings are part of its creation: shown as set, not counted.
// Routing at its defaults is what the API gives a new domain: nothing to write.
function creationSettings(desired: DomainModel): Change[] {
  return (['routing', 'cache', 'ssl'] as const).flatMap((resource): Change[] => {
    const item = desired[resource];
    const fields = item ? createdFields(resource, item) : [];
    return item && (fields.length || resource !== 'routing') ? [{ action: 'create', resource, key: desired.apex, fields, desired: item }] : [];
  });
}

/** Every live item of a domain the safety gate weighs: the domain itself, records, geo route sets, origins and rules. */
function itemCount(model: DomainModel): number {
  return 1 + model.records.size + model.geoRoutes.size + model.origins.size + RULE_SECTIONS.reduce((sum, section) => sum + model.rules[section].size, 0);
}

// A geo-routed record that is deleted and created again (its type changed) loses its routes: they
// must be put on the new record even though the route set itself is unchanged.
function reattachGeoRoutes(desired: DomainModel, changes: Change[], counts: Counts): Change[] {
  const planned = new Set(changes.filter((change) => change.resource === 'geo_routes').map((change) => change.key));
  const recreated = new Set(changes.filter((change) => change.resource === 'record' && change.action === 'create').map((change) => recordName(change.key)));
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
  const unmanaged: Unmanaged[] = [];
  const empty = new Map<string, Item>();
  const changes: Change[] = [];
  if (!live) {
    changes.push({ action: 'create', resource: 'domain', key: desired.apex, fields: createdFields('domain', desired.fields).filter((field) => field.after !== desired.apex), desired: desired.fields });
    counts.creates++;
    changes.push(...creationSettings(desired));
  } else {
    changes.push(...diffSingle('domain', desired.apex, desired.fields, live.fields, counts));
    changes.push(...diffSingle('routing', desired.apex, desired.routing, live.routing, counts));
    changes.push(...diffSingle('cache', desired.apex, desired.cache, live.cache, counts));
    changes.push(...diffSingle('ssl', desired.apex, desired.ssl, live.ssl, counts));
  }
  changes.push(...diffMap('origin', desired.origins, live?.origins ?? empty, policy, counts, unmanaged));
  changes.push(...pairRecordUpdates(diffMap('record', desired.records, live?.records ?? empty, policy, counts, unmanaged), live?.records ?? empty, counts));
  changes.push(...diffMap('geo_routes', desired.geoRoutes, live?.geoRoutes ?? empty, policy, counts, unmanaged));
  for (const section of RULE_SECTIONS) changes.push(...diffMap(section, desired.rules[section], live?.rules[section] ?? empty, policy, counts, unmanaged));
  if (live) changes.push(...reattachGeoRoutes(desired, changes, counts));
  const action = !live ? 'create' : changes.length ? 'update' : 'unchanged';
  return { domain: desired.apex, action, changes, counts, liveItems: live ? itemCount(live) : 0, unmanaged };
}

/** A plan for a live domain whose file is gone: deleted when the repository says so, else reported. */
export function planRemovedDomain(live: DomainModel, deleteIt: boolean): DomainPlan {
  const counts = zero();
  if (deleteIt) counts.deletes++;
  const changes: Change[] = deleteIt ? [{ action: 'delete', resource: 'domain', key: live.apex, fields: [] }] : [];
  return { domain: live.apex, action: deleteIt ? 'delete' : 'orphaned', changes, counts, liveItems: itemCount(live), unmanaged: [] };
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

export type SafetyGate = { maxPercent: number; minLiveItems: number };

/** How many live items a domain's plan deletes: each deleted item, or the domain and all of its items. */
function deletedItems(domain: DomainPlan): number {
  if (domain.action === 'delete') return domain.liveItems;
  return domain.changes.filter((change) => change.action === 'delete').length;
}

function overGate(deletes: number, live: number, gate: SafetyGate): boolean {
  return live >= gate.minLiveItems && deletes > 0 && (deletes / live) * 100 > gate.maxPercent;
}

function gateMessage(deletes: number, live: number, where: string, gate: SafetyGate): string {
  return `the plan deletes ${deletes} of ${live} live items (${((deletes / live) * 100).toFixed(0)}%)${where}, more than max_delete_percent ${gate.maxPercent}%`;
}

/**
 * Why the plan must not be applied unless forced or accepted: it deletes more than `maxPercent` of the
 * live items it changes or keeps (orphaned domains, left alone, are not weighed), or of one
 * domain's live items, as octoDNS gates each zone. The gate applies only from `minLiveItems`
 * live items, so the one record of a small domain can change. A domain deleted whole because
 * its file was removed (delete_removed_domains) is weighed in the whole plan only.
 */
export function safetyProblem(plan: Plan, gate: SafetyGate): string | undefined {
  const weighed = plan.domains.filter((domain) => domain.action !== 'orphaned');
  const live = weighed.reduce((sum, domain) => sum + domain.liveItems, 0);
  const deletes = weighed.reduce((sum, domain) => sum + deletedItems(domain), 0);
  if (overGate(deletes, live, gate)) return gateMessage(deletes, live, '', gate);
  const over = weighed.filter((domain) => domain.action === 'update' && overGate(deletedItems(domain), domain.liveItems, gate));
  if (!over.length) return undefined;
  const [first] = over;
  const more = over.length > 1 ? ` (and ${over.length - 1} more domain${over.length > 2 ? 's' : ''})` : '';
  return gateMessage(deletedItems(first), first.liveItems, ` of ${first.domain}${more}`, gate);
}

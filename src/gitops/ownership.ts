import { isDeepStrictEqual } from 'node:util';
import type { DomainModel, Item } from './model.js';
import type { Change, DomainPlan, Plan } from './plan.js';
import { RULE_SECTIONS } from './spec.js';

export type Drift = { domain: string; resource: Change['resource']; key: string; action: Change['action']; fields: Change['fields'] };

/** The item of `model` a change is about (its resource and key), if the model has it. */
export function itemOf(model: DomainModel, change: Pick<Change, 'resource' | 'key'>): Item | undefined {
  switch (change.resource) {
    case 'domain':
      return model.fields;
    case 'routing':
      return model.routing;
    case 'cache':
      return model.cache;
    case 'ssl':
      return model.ssl;
    case 'record':
      return model.records.get(change.key);
    case 'geo_routes':
      return model.geoRoutes.get(change.key);
    case 'origin':
      return model.origins.get(change.key);
    case 'settings':
      return undefined;
    default:
      return (RULE_SECTIONS as readonly string[]).includes(change.resource) ? model.rules[change.resource as (typeof RULE_SECTIONS)[number]].get(change.key) : undefined;
  }
}

/**
 * Tells drift from git changes, using the desired state last applied from git: an update of
 * an item whose desired state git did not change since the last apply is drift (someone changed
 * it through the API). Without self_heal, drift is reported and not applied; with it, drift is
 * applied and reported as reverted, with the drifted values as `before`. Live items the file does
 * not list follow `prune` alone, as in `cdn plan` (deleted, or kept and listed as not in git).
 * A domain never applied before (no last-applied model) is planned as it is.
 */
export function separateDrift(plan: DomainPlan, lastApplied: DomainModel | undefined, selfHeal: boolean): { plan: DomainPlan; drift: Drift[]; reverted: Drift[] } {
  if (!lastApplied) return { plan, drift: [], reverted: [] };
  const drifted = plan.changes.filter((change) => {
    const before = itemOf(lastApplied, change);
    return change.action === 'update' && !change.follows && before !== undefined && isDeepStrictEqual(before, change.desired);
  });
  const found = drifted.map((change) => ({ domain: plan.domain, resource: change.resource, key: change.key, action: change.action, fields: change.fields }));
  if (selfHeal) return { plan, drift: [], reverted: found };
  const keep = plan.changes.filter((change) => !drifted.includes(change));
  const counts = { ...plan.counts, updates: plan.counts.updates - drifted.length, unchanged: plan.counts.unchanged + drifted.length };
  return { plan: { ...plan, changes: keep, counts, action: plan.action === 'update' && keep.length === 0 ? 'unchanged' : plan.action }, drift: found, reverted: [] };
}

/** Applies separateDrift to every domain of a plan, with each domain's self_heal policy. */
export function withoutDrift(plan: Plan, lastApplied: Map<string, DomainModel>, selfHeal: (domain: string) => boolean): { plan: Plan; drift: Drift[]; reverted: Drift[] } {
  const drift: Drift[] = [];
  const reverted: Drift[] = [];
  const domains = plan.domains.map((domain) => {
    const separated = separateDrift(domain, lastApplied.get(domain.domain), selfHeal(domain.domain));
    drift.push(...separated.drift);
    reverted.push(...separated.reverted);
    return separated.plan;
  });
  const counts = { creates: 0, updates: plan.settings.length, deletes: 0, unchanged: 0 };
  for (const domain of domains) for (const key of Object.keys(counts) as (keyof typeof counts)[]) counts[key] += domain.counts[key];
  return { plan: { ...plan, domains, counts }, drift, reverted };
}

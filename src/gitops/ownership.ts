import { isDeepStrictEqual } from 'node:util';
import type { DomainModel, Item } from './model.js';
import { recordName, type Change, type DomainPlan, type Plan } from './plan.js';
import { RULE_SECTIONS } from './spec.js';

export type Drift = { domain: string; resource: Change['resource']; key: string; action: Change['action']; fields: Change['fields'] };

function itemOf(model: DomainModel, change: Change): Item | undefined {
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

/** The desired state of a domain as last applied from git, and the revision it came from. */
export type Applied = { model: DomainModel; revision: string };

/** What the controller applies, as one value: the commit and the files read at it (a working copy's edits change the files, not the commit). */
export function revisionOf(sha: string | null, digest: string): string {
  return `${sha ?? 'working copy'} ${digest}`;
}

// What nobody committed: a change to an item whose YAML git did not change since it was last
// applied (the item was changed or deleted through the API), and, between commits, a live item
// the file does not list (added through the API). A change forced by another one never is.
function isDrift(change: Change, applied: Applied, revision: string): boolean {
  if (change.follows) return false;
  if (change.action === 'delete') return applied.revision === revision;
  const before = itemOf(applied.model, change);
  return before !== undefined && isDeepStrictEqual(before, change.desired);
}

// A record deleted through the API is created again, not left as drift, when git changes its geo routes (they need it).
function neededByGitChanges(drifted: Change[], changes: Change[]): Change[] {
  const routed = new Set(changes.filter((change) => change.resource === 'geo_routes' && !drifted.includes(change)).map((change) => change.key));
  return drifted.filter((change) => !(change.resource === 'record' && change.action === 'create' && routed.has(recordName(change.key))));
}

/**
 * Tells drift from git changes, using the desired state last applied from git (isDrift). Without
 * self_heal, drift is reported and not applied, so between commits the controller changes nothing;
 * with it, drift is applied and reported as reverted, with the drifted values as `before`. A live
 * item the file does not list is drift only between commits: a new commit prunes it (prune: true),
 * as its plan shows. Only a domain planned as an update holds drift: one never applied before,
 * missing live (created again) or deleted with its file is planned as it is.
 */
export function separateDrift(plan: DomainPlan, applied: Applied | undefined, selfHeal: boolean, revision: string): { plan: DomainPlan; drift: Drift[]; reverted: Drift[] } {
  if (!applied || plan.action !== 'update') return { plan, drift: [], reverted: [] };
  const drifted = neededByGitChanges(plan.changes.filter((change) => isDrift(change, applied, revision)), plan.changes);
  const found = drifted.map((change) => ({ domain: plan.domain, resource: change.resource, key: change.key, action: change.action, fields: change.fields }));
  if (selfHeal) return { plan, drift: [], reverted: found };
  const keep = plan.changes.filter((change) => !drifted.includes(change));
  const counts = { ...plan.counts };
  for (const change of drifted) {
    counts[`${change.action}s`]--;
    if (change.action !== 'create') counts.unchanged++;
  }
  return { plan: { ...plan, changes: keep, counts, action: keep.length ? 'update' : 'unchanged' }, drift: found, reverted: [] };
}

/** Applies separateDrift to every domain of a plan, with each domain's self_heal policy, for the revision being applied. */
export function withoutDrift(plan: Plan, lastApplied: Map<string, Applied>, selfHeal: (domain: string) => boolean, revision: string): { plan: Plan; drift: Drift[]; reverted: Drift[] } {
  const drift: Drift[] = [];
  const reverted: Drift[] = [];
  const domains = plan.domains.map((domain) => {
    const separated = separateDrift(domain, lastApplied.get(domain.domain), selfHeal(domain.domain), revision);
    drift.push(...separated.drift);
    reverted.push(...separated.reverted);
    return separated.plan;
  });
  const counts = { creates: 0, updates: plan.settings.length, deletes: 0, unchanged: 0 };
  for (const domain of domains) for (const key of Object.keys(counts) as (keyof typeof counts)[]) counts[key] += domain.counts[key];
  return { plan: { ...plan, domains, counts }, drift, reverted };
}

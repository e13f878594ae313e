import type { ApiClient } from './api-client.js';
import { applyDomainPlan, type DomainResult } from './apply.js';
import { loadLiveDomains, type LiveDomain } from './live.js';
import type { DesiredState } from './load.js';
import { desiredModel, type DomainModel } from './model.js';
import { combinePlans, planDomain, planRemovedDomain, planSettings, safetyProblem, type Change, type Plan } from './plan.js';

export type PlannedState = { plan: Plan; desired: Map<string, DomainModel>; live: Map<string, LiveDomain>; safety?: string };

const CONCURRENCY = 8;

async function inBatches<T, R>(items: T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += CONCURRENCY) results.push(...(await Promise.all(items.slice(start, start + CONCURRENCY).map(work))));
  return results;
}

/**
 * Reads the live state of every domain the repository covers and plans it.
 * Domains the repository does not mention are never read or touched; a live
 * domain listed in `owned_domains` (or in `previouslyOwned`, the domains a
 * controller applied before) whose file is gone is orphaned (or deleted when
 * `delete_removed_domains`).
 */
export async function buildPlan(client: ApiClient, state: DesiredState, previouslyOwned: Iterable<string> = []): Promise<PlannedState> {
  if (state.problems.length) throw new Error(`the desired state has ${state.problems.length} problem(s); validate it first`);
  const desired = new Map(state.domains.map((domain) => [domain.spec.domain, desiredModel(domain.spec)]));
  const policies = new Map(state.domains.map((domain) => [domain.spec.domain, domain.spec.policy]));
  const live = await loadLiveDomains(client, new Set([...desired.keys(), ...(state.repository.owned_domains ?? []), ...previouslyOwned]));
  const plans = [...desired.values()].map((model) => planDomain(model, live.get(model.apex), { prune: policies.get(model.apex)?.prune ?? true }));
  for (const [apex, domain] of live) if (!desired.has(apex)) plans.push(planRemovedDomain(domain, state.repository.delete_removed_domains));
  const liveSettings = Object.keys(state.settings).length ? (await client.request('GET', '/api/v1/settings')).data : {};
  const plan = combinePlans(planSettings(state.settings, liveSettings), plans);
  return { plan, desired, live, safety: safetyProblem(plan, { maxPercent: state.repository.max_delete_percent, minLiveItems: state.repository.min_live_items }) };
}

/**
 * Applies the settings changes first (domains may depend on them, e.g. platform
 * anycast addresses), then every domain independently: one domain's failure
 * does not stop the others.
 */
export async function applyPlan(client: ApiClient, planned: PlannedState, env: NodeJS.ProcessEnv = process.env): Promise<DomainResult[]> {
  const settings = await applySettings(client, planned.plan.settings);
  const pending = planned.plan.domains.filter((domain) => domain.action !== 'unchanged' && domain.action !== 'orphaned');
  return [...settings, ...(await inBatches(pending, (domain) => applyDomainPlan(client, domain, planned.desired.get(domain.domain), planned.live.get(domain.domain), env)))];
}

// Every settings group in one batch: all of them change, or none.
async function applySettings(client: ApiClient, changes: Change[]): Promise<DomainResult[]> {
  if (!changes.length) return [];
  const operations = changes.map((change) => ({ method: 'PATCH', path: `/api/v1/settings/${change.key}`, body: Object.fromEntries(change.fields.map((field) => [field.field, field.after])) }));
  try {
    await client.request('POST', '/api/v1/batch', { operations });
    return changes.map((change) => ({ domain: `settings/${change.key}`, ok: true, applied: 1 }));
  } catch (error) {
    return changes.map((change) => ({ domain: `settings/${change.key}`, ok: false, applied: 0, error: (error as Error).message }));
  }
}

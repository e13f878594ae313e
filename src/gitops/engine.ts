import type { ApiClient } from './api-client.js';
import { applyDomainPlan, type DomainResult } from './apply.js';
import { loadLiveDomains, type LiveDomain } from './live.js';
import type { DesiredState } from './load.js';
import { keptRecordProblems } from './kept-records.js';
import { preflightProblems } from './preflight.js';
import type { Problem } from './problems.js';
import { desiredModel, type DomainModel, type Item } from './model.js';
import { combinePlans, planDomain, planRemovedDomain, planSettings, safetyProblem, type Change, type Plan, type SafetyGate } from './plan.js';
import type { RepositorySpec } from './spec.js';

export type PlannedState = {
  plan: Plan;
  desired: Map<string, DomainModel>;
  live: Map<string, LiveDomain>;
  liveSettings: Record<string, Item>;
  safety?: string;
  /** What the API would refuse that only the live service or the environment can tell (unset ${VAR}s, anycast without addresses, records beside kept ones). */
  problems: Problem[];
};

export type PlanOptions = {
  /** Domains a controller applied before: still read, so a removed file shows as orphaned. */
  previouslyOwned?: Iterable<string>;
  /** Plan only these apexes (and no settings): `--domain`. */
  only?: string[];
  env?: NodeJS.ProcessEnv;
};

const CONCURRENCY = 8;

async function inBatches<T, R>(items: T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += CONCURRENCY) results.push(...(await Promise.all(items.slice(start, start + CONCURRENCY).map(work))));
  return results;
}

/** The desired state narrowed to the apexes of `--domain` (settings are left out); an apex nobody describes or owns is an error. */
function targeted(state: DesiredState, only: string[] | undefined, owned: Set<string>): DesiredState {
  if (!only) return state;
  const wanted = new Set(only.map((apex) => apex.toLowerCase()));
  const known = new Set([...state.domains.map((domain) => domain.spec.domain), ...owned]);
  const unknown = [...wanted].filter((apex) => !known.has(apex));
  if (unknown.length) throw new Error(`--domain ${unknown.join(', ')}: no file in domains/ and not owned by this repository`);
  return { ...state, settings: {}, domains: state.domains.filter((domain) => wanted.has(domain.spec.domain)), repository: { ...state.repository, owned_domains: [...owned].filter((apex) => wanted.has(apex)) } };
}

/**
 * Reads the live state of every domain the repository covers and plans it.
 * Domains the repository does not mention are never read or touched; a live
 * domain listed in `owned_domains` (or in `previouslyOwned`, the domains a
 * controller applied before) whose file is gone is orphaned (or deleted when
 * `delete_removed_domains`).
 */
export async function buildPlan(client: ApiClient, fullState: DesiredState, options: PlanOptions = {}): Promise<PlannedState> {
  if (fullState.problems.length) throw new Error(`the desired state has ${fullState.problems.length} problem(s); validate it first`);
  const owned = new Set([...(fullState.repository.owned_domains ?? []), ...(options.previouslyOwned ?? [])]);
  const state = targeted(fullState, options.only, owned);
  const covered = options.only ? new Set(options.only.map((apex) => apex.toLowerCase())) : new Set([...state.domains.map((domain) => domain.spec.domain), ...owned]);
  const desired = new Map(state.domains.map((domain) => [domain.spec.domain, desiredModel(domain.spec)]));
  const policies = new Map(state.domains.map((domain) => [domain.spec.domain, domain.spec.policy]));
  const live = await loadLiveDomains(client, covered);
  const plans = [...desired.values()].map((model) => planDomain(model, live.get(model.apex), { prune: policies.get(model.apex)?.prune ?? true }));
  for (const [apex, domain] of live) if (!desired.has(apex)) plans.push(planRemovedDomain(domain, state.repository.delete_removed_domains));
  const liveSettings = await readSettings(client, state);
  const plan = combinePlans(planSettings(state.settings, liveSettings), plans);
  const safety = safetyProblem(plan, safetyGate(state.repository));
  const problems = [...preflightProblems(state, plan, liveSettings, options.env ?? process.env), ...keptRecordProblems(state, plan, desired, live)];
  return { plan, desired, live, liveSettings, safety, problems };
}

/** The repository's safety gate: max_delete_percent from min_live_items live items. */
export function safetyGate(repository: RepositorySpec): SafetyGate {
  return { maxPercent: repository.max_delete_percent, minLiveItems: repository.min_live_items };
}

// Settings are read when the repository has settings files, or when a domain routes by anycast (to know the platform addresses).
async function readSettings(client: ApiClient, state: DesiredState): Promise<Record<string, Item>> {
  const anycast = state.domains.some((domain) => domain.spec.routing?.routing_mode === 'anycast');
  return Object.keys(state.settings).length || anycast ? (await client.request('GET', '/api/v1/settings')).data : {};
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

import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { PlannedState } from './engine.js';
import { desiredFiles, loadDesiredState, type DesiredState } from './load.js';
import type { DomainModel, Item } from './model.js';
import type { Plan } from './plan.js';
import { planObject } from './print.js';
import { RULE_SECTIONS } from './spec.js';

export const PLAN_FORMAT = 'cdn-plan/1';

/** A plan written by `cdn plan --out`: what it was made from, and the plan itself. */
export type SavedPlan = {
  format: typeof PLAN_FORMAT;
  created_at: string;
  api_url: string;
  /** `repo` is where the files were committed (absent from plans of older versions). */
  desired: { repo?: string | null; commit: string | null; digest: string; files: Record<string, string> };
  live: { digest: string };
  only: string[] | null;
  safety: string | null;
  plan: ReturnType<typeof planObject>;
};

/** A saved plan that cannot be applied as it is; the message says why and what to do. */
class StalePlanError extends Error {}

// A live item as the planner saw it: only the fields the desired item sets, or `present` for an item the file does not list.
function project(live: Item | undefined, like: Item | undefined): unknown {
  if (!live) return null;
  if (!like) return 'present';
  return Object.fromEntries(Object.keys(like).sort().map((field) => [field, live[field] ?? null]));
}

function projectMap(live: Map<string, Item> | undefined, desired: Map<string, Item> | undefined): [string, unknown][] {
  const keys = [...new Set([...(live?.keys() ?? []), ...(desired?.keys() ?? [])])].sort();
  return keys.map((key) => [key, project(live?.get(key), desired?.get(key))]);
}

function projectDomain(live: DomainModel | undefined, desired: DomainModel | undefined): unknown {
  if (!live) return null;
  return {
    fields: project(live.fields, desired?.fields),
    routing: project(live.routing, desired?.routing),
    cache: project(live.cache, desired?.cache),
    ssl: project(live.ssl, desired?.ssl),
    records: projectMap(live.records, desired?.records),
    geo: projectMap(live.geoRoutes, desired?.geoRoutes),
    origins: projectMap(live.origins, desired?.origins),
    rules: RULE_SECTIONS.map((section) => projectMap(live.rules[section], desired?.rules[section])),
  };
}

/**
 * A digest of the live state a plan was computed against: every live item of the covered
 * domains and settings groups, as far as the plan compared it. Another digest means the plan
 * would no longer be the same.
 */
export function liveDigest(planned: PlannedState, settings: Record<string, Item>): string {
  const apexes = [...new Set([...planned.desired.keys(), ...planned.live.keys()])].sort();
  const view = {
    domains: apexes.map((apex) => [apex, projectDomain(planned.live.get(apex), planned.desired.get(apex))]),
    settings: Object.keys(settings).sort().map((group) => [group, project(planned.liveSettings[group] ?? {}, settings[group])]),
  };
  return createHash('sha256').update(JSON.stringify(view)).digest('hex');
}

/** The plan as a file for `cdn apply PLAN`: with the desired-state files, their commit and digest, and the live digest. */
export async function savedPlan(root: string, state: DesiredState, planned: PlannedState, meta: { repo: string | null; commit: string | null; apiUrl: string; only?: string[] }): Promise<SavedPlan> {
  const files: Record<string, string> = {};
  for (const file of await desiredFiles(root)) files[file] = await readFile(path.join(root, file), 'utf8');
  return {
    format: PLAN_FORMAT,
    created_at: new Date().toISOString(),
    api_url: meta.apiUrl,
    desired: { repo: meta.repo, commit: meta.commit, digest: state.digest, files },
    live: { digest: liveDigest(planned, state.settings) },
    only: meta.only ?? null,
    safety: planned.safety ?? null,
    plan: planObject(planned.plan, planned.safety),
  };
}

/** Reads a plan file, refusing anything that is not one. */
export async function readSavedPlan(file: string): Promise<SavedPlan> {
  let saved: SavedPlan;
  try {
    saved = JSON.parse(await readFile(file, 'utf8')) as SavedPlan;
  } catch (error) {
    throw new StalePlanError(`${file} is not a plan file: ${(error as Error).message}`);
  }
  if (saved?.format !== PLAN_FORMAT) throw new StalePlanError(`${file} is not a plan file of this version (format ${JSON.stringify(saved?.format)}, expected ${PLAN_FORMAT}); run cdn plan --out again`);
  return saved;
}

/** Runs `work` on the desired state the plan was made from, written back to a temporary directory. */
export async function withSavedState<T>(saved: SavedPlan, work: (root: string, state: DesiredState) => Promise<T>): Promise<T> {
  const root = await mkdtemp(path.join(tmpdir(), 'cdn-saved-plan-'));
  try {
    for (const [file, text] of Object.entries(saved.desired.files)) {
      const target = path.resolve(root, file);
      if (!target.startsWith(`${root}${path.sep}`)) throw new StalePlanError(`the plan file names ${JSON.stringify(file)}, outside the desired state`);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, text);
    }
    const state = await loadDesiredState(root);
    if (state.digest !== saved.desired.digest) throw new StalePlanError('the desired state in the plan file does not match its digest; the file was edited');
    return await work(root, state);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** Refuses a saved plan whose live state moved on since it was made, or that would now be a different plan. */
export function assertStillCurrent(saved: SavedPlan, planned: PlannedState, settings: Record<string, Item>, plan: Plan): void {
  const digest = liveDigest(planned, settings);
  if (digest !== saved.live.digest) {
    throw new StalePlanError(`the live state changed since the plan was made (${saved.created_at}); nothing was applied. Run cdn plan --out again and review the new plan.`);
  }
  if (!isDeepStrictEqual(JSON.parse(JSON.stringify(planObject(plan, planned.safety))), saved.plan)) {
    throw new StalePlanError('the plan computed now differs from the saved plan (another version of cdn made it?); nothing was applied. Run cdn plan --out again.');
  }
}

import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { DomainResult } from '../gitops/apply.js';
import { ApiClient } from '../gitops/api-client.js';
import { applyPlan, buildPlan, type PlannedState } from '../gitops/engine.js';
import { loadDesiredState, type DesiredState } from '../gitops/load.js';
import { failureMarkdown } from '../gitops/failure-markdown.js';
import { planMarkdown, planObject, planText, summaryLine } from '../gitops/print.js';
import { unsetSecrets } from '../gitops/preflight.js';
import { formatProblem, sortProblems, type Problem } from '../gitops/problems.js';
import { assertStillCurrent, liveDigest, readSavedPlan, savedPlan, withSavedState } from '../gitops/saved-plan.js';
import { checkoutOrigin } from '../gitops/source.js';
import { gitopsSourceHeaders, type GitopsSource } from '../http/gitops-source.js';
import { waitAndReport, waitSeconds } from '../gitops/rollout-wait.js';

/**
 * Exit codes of plan and apply: 0 done (plan: no changes, or changes without
 * --detailed-exitcode), 1 an error (nothing applied), 2 plan --detailed-exitcode found
 * changes, 3 the safety gate refuses the plan (apply refused it; plan --detailed-exitcode:
 * apply would refuse it), 4 apply left at least one domain failed, 5 apply --wait timed out
 * before every pool edge served the result (EXIT_ROLLOUT_TIMEOUT).
 */
export const EXIT = { ok: 0, error: 1, changes: 2, refused: 3, failed: 4 } as const;

export type ServerOptions = { url?: string; token?: string };
// Where a failure goes besides stderr: one JSON document (--json) or a Markdown comment (--markdown) on stdout.
type FailureOutput = { json?: boolean; markdown?: boolean };
export type PlanOptions = ServerOptions & { json?: boolean; markdown?: boolean; ref?: string; path?: string; out?: string; domain?: string[]; detailedExitcode?: boolean; expectNoChanges?: boolean };
export type ApplyOptions = ServerOptions & { force?: boolean; json?: boolean; domain?: string[]; wait?: string | boolean };

function apiUrl(options: ServerOptions): string {
  return options.url ?? process.env.CDN_API_URL ?? 'http://127.0.0.1:8080';
}

function clientOf(options: ServerOptions): ApiClient {
  return new ApiClient(apiUrl(options), options.token ?? process.env.CDN_API_TOKEN);
}

// With --json, stdout carries one document whatever happens: the problems, or the error.
function printJson(document: object): void {
  process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
}

function printProblems(problems: Problem[], what: string, output: FailureOutput): void {
  const sorted = sortProblems(problems);
  for (const problem of sorted) process.stderr.write(`${formatProblem(problem)}\n`);
  process.stderr.write(`${problems.length} problem(s); ${what}\n`);
  if (output.json) printJson({ status: 'rejected', problems: sorted });
  if (output.markdown) process.stdout.write(failureMarkdown(`${problems.length} problem(s); ${what}.`, sorted));
  process.exitCode = EXIT.error;
}

async function withFailureOutput(output: FailureOutput, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (output.json) printJson({ status: 'error', error: (error as Error).message });
    if (output.markdown) process.stdout.write(failureMarkdown((error as Error).message));
    throw error;
  }
}

// A desired state that does not validate is never planned against the server.
async function validState(dir: string, output: FailureOutput): Promise<DesiredState | undefined> {
  const state = await loadDesiredState(path.resolve(dir));
  if (!state.problems.length) return state;
  printProblems(state.problems, 'nothing was planned', output);
  return undefined;
}

// The desired state as of a git ref of the repository at `dir`: checked out into a temporary worktree.
async function atRef<T>(dir: string, ref: string, subdir: string, work: (checkout: string) => Promise<T>): Promise<T> {
  const { simpleGit } = await import('simple-git');
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const git = simpleGit(dir);
  const checkout = await mkdtemp(path.join(tmpdir(), 'cdn-plan-ref-'));
  await git.raw(['worktree', 'add', '--detach', checkout, ref]);
  try {
    return await work(path.join(checkout, subdir));
  } finally {
    await git.raw(['worktree', 'remove', '--force', checkout]);
    await rm(checkout, { recursive: true, force: true });
  }
}

function changeCount(planned: PlannedState): number {
  const { creates, updates, deletes } = planned.plan.counts;
  return creates + updates + deletes;
}

/**
 * `cdn plan DIR [--ref REF]`: what apply would change, as text (default), one JSON document
 * (--json) or Markdown (--markdown), each with the safety warning; --out also writes the
 * plan to a file for `cdn apply FILE`. When nothing can be planned, --json and --markdown
 * still print one document saying why.
 */
export async function runPlan(dir: string, options: PlanOptions): Promise<void> {
  await withFailureOutput(options, () => (options.ref ? atRef(dir, options.ref, options.path ?? '.', (checkout) => planDir(checkout, options)) : planDir(dir, options)));
}

// What the safety gate's refusal means for whoever applies the plan.
function refusalNote(commit: string | null): string {
  return `the safety gate will refuse this plan: apply it with cdn apply --force, or let a controller apply it with cdn accept-plan --repo REPO --commit ${commit ?? 'SHA'} --reason TEXT\n`;
}

function exitCodeOf(planned: PlannedState, options: PlanOptions): number {
  const changes = changeCount(planned);
  if (changes && options.expectNoChanges) return EXIT.error;
  if (!options.detailedExitcode) return EXIT.ok;
  if (planned.safety) return EXIT.refused;
  return changes ? EXIT.changes : EXIT.ok;
}

async function planDir(dir: string, options: PlanOptions): Promise<void> {
  const state = await validState(dir, options);
  if (!state) return;
  const planned = await buildPlan(clientOf(options), state, { only: options.domain, planningOnly: true });
  if (planned.problems.length) return printProblems(planned.problems, 'the API would refuse this plan; nothing was planned', options);
  const unset = unsetSecrets(state, planned.plan, process.env);
  if (unset.length) process.stderr.write(`not set here, shown as (secret): ${unset.join(', ')}; apply needs them\n`);
  const root = path.resolve(dir);
  const origin = await checkoutOrigin(root);
  const commit = origin?.commit ?? null;
  if (options.out) await writeFile(options.out, `${JSON.stringify(await savedPlan(root, state, planned, { repo: origin?.repo ?? null, commit, apiUrl: apiUrl(options), only: options.domain }), null, 2)}\n`);
  if (options.json) printJson({ ...planObject(planned.plan, planned.safety), desired: { commit, digest: state.digest }, live: { digest: liveDigest(planned, state.settings) } });
  else process.stdout.write((options.markdown ? planMarkdown : planText)(planned.plan, planned.safety));
  if (options.out) process.stderr.write(`plan written to ${options.out}; apply it with: cdn apply ${options.out}\n`);
  if (planned.safety) process.stderr.write(refusalNote(commit));
  const changes = changeCount(planned);
  if (changes && options.expectNoChanges) process.stderr.write(`${changes} change(s) planned, but --expect-no-changes was given\n`);
  process.exitCode = exitCodeOf(planned, options);
}

function report(results: DomainResult[], json: boolean | undefined, planned: PlannedState): void {
  const failed = results.filter((result) => !result.ok);
  if (json) printJson({ status: failed.length ? 'failed' : 'applied', ...planObject(planned.plan, planned.safety), results });
  else for (const result of results) process.stdout.write(result.ok ? `applied ${result.domain} (${result.applied} write(s))\n` : `FAILED ${result.domain}, left as it was: ${result.error}\n`);
  if (failed.length) process.exitCode = EXIT.failed;
}

async function applyPlanned(client: ApiClient, planned: PlannedState, options: ApplyOptions): Promise<void> {
  if (planned.safety && !options.force) {
    if (options.json) printJson({ status: 'refused', ...planObject(planned.plan, planned.safety) });
    process.stderr.write(`refused: ${planned.safety}; use --force to apply it anyway\n`);
    process.exitCode = EXIT.refused;
    return;
  }
  if (changeCount(planned) === 0) {
    if (options.json) printJson({ status: 'no_changes', ...planObject(planned.plan, planned.safety) });
    else process.stdout.write(`no changes (${summaryLine(planned.plan)})\n`);
    return;
  }
  if (!options.json) process.stdout.write(planText(planned.plan, planned.safety));
  report(await applyPlan(client, planned), options.json, planned);
}

/**
 * `cdn apply DIR|PLAN`: applies a desired-state directory, or exactly the plan a
 * `cdn plan --out` file holds (refused when the live state changed since), domain by
 * domain, each in one transaction.
 */
export async function runApply(target: string, options: ApplyOptions): Promise<void> {
  const seconds = options.wait === undefined ? undefined : waitSeconds(options.wait);
  await withFailureOutput(options, async () => {
    const client = await applyTarget(target, options);
    if (client && seconds !== undefined && !process.exitCode) process.exitCode = await waitAndReport(client, client.configChange, seconds);
  });
}

// The client of an apply: its writes declare the repository and commit they come from (the audit log shows them).
function declaring(client: ApiClient, origin: GitopsSource | undefined): ApiClient {
  return origin ? client.withHeaders(gitopsSourceHeaders(origin)) : client;
}

// Returns the client that wrote (whose configChange names the last write), or nothing when apply stopped before writing.
async function applyTarget(target: string, options: ApplyOptions): Promise<ApiClient | undefined> {
  if ((await stat(target).catch(() => undefined))?.isFile()) {
    const saved = await readSavedPlan(target);
    const { repo, commit } = saved.desired;
    const client = declaring(clientOf(options), repo && commit ? { repo, commit } : undefined);
    await withSavedState(saved, async (_root, state) => {
      const planned = await buildPlan(client, state, { only: saved.only ?? undefined });
      if (planned.problems.length) return printProblems(planned.problems, 'nothing was applied', options);
      assertStillCurrent(saved, planned, state.settings, planned.plan);
      await applyPlanned(client, planned, options);
    });
    return client;
  }
  const state = await validState(target, options);
  if (!state) return undefined;
  const client = declaring(clientOf(options), await checkoutOrigin(target));
  const planned = await buildPlan(client, state, { only: options.domain });
  if (planned.problems.length) {
    printProblems(planned.problems, 'the API would refuse this plan; nothing was applied', options);
    return undefined;
  }
  await applyPlanned(client, planned, options);
  return client;
}

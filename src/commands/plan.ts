import path from 'node:path';
import { ApiClient } from '../gitops/api-client.js';
import { applyPlan, buildPlan } from '../gitops/engine.js';
import { loadDesiredState } from '../gitops/load.js';
import { planJson, planMarkdown, planText, summaryLine } from '../gitops/print.js';
import { formatProblem, sortProblems } from '../gitops/problems.js';

export type ServerOptions = { url?: string; token?: string };
export type PlanOptions = ServerOptions & { json?: boolean; markdown?: boolean; ref?: string; path?: string };
export type ApplyOptions = ServerOptions & { force?: boolean };

function clientOf(options: ServerOptions): ApiClient {
  return new ApiClient(options.url ?? process.env.CDN_API_URL ?? 'http://127.0.0.1:8080', options.token ?? process.env.CDN_API_TOKEN);
}

// A desired state that does not validate is never planned against the server.
async function validState(dir: string) {
  const state = await loadDesiredState(path.resolve(dir));
  if (!state.problems.length) return state;
  for (const problem of sortProblems(state.problems)) process.stderr.write(`${formatProblem(problem)}\n`);
  process.stderr.write(`${state.problems.length} problem(s); nothing was planned\n`);
  process.exitCode = 1;
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

/** `cdn plan DIR [--ref REF]`: what apply would change, as text (default), --json or --markdown. */
export async function runPlan(dir: string, options: PlanOptions): Promise<void> {
  if (options.ref) return atRef(dir, options.ref, options.path ?? '.', (checkout) => runPlan(checkout, { ...options, ref: undefined }));
  const state = await validState(dir);
  if (!state) return;
  const planned = await buildPlan(clientOf(options), state);
  const render = options.json ? planJson : options.markdown ? planMarkdown : planText;
  process.stdout.write(render(planned.plan));
  if (planned.safety && !options.json) process.stdout.write(`\nwarning: ${planned.safety}\n`);
}

/** `cdn apply DIR`: applies the plan domain by domain; exit 1 when any domain failed or the safety gate refused. */
export async function runApply(dir: string, options: ApplyOptions): Promise<void> {
  const state = await validState(dir);
  if (!state) return;
  const client = clientOf(options);
  const planned = await buildPlan(client, state);
  if (planned.safety && !options.force) {
    process.stderr.write(`refused: ${planned.safety}\n`);
    process.exitCode = 1;
    return;
  }
  if (planned.plan.counts.creates + planned.plan.counts.updates + planned.plan.counts.deletes === 0) {
    process.stdout.write(`no changes (${summaryLine(planned.plan)})\n`);
    return;
  }
  process.stdout.write(planText(planned.plan));
  const results = await applyPlan(client, planned);
  for (const result of results) process.stdout.write(result.ok ? `applied ${result.domain} (${result.applied} call(s))\n` : `FAILED ${result.domain} after ${result.applied} call(s): ${result.error}\n`);
  if (results.some((result) => !result.ok)) process.exitCode = 1;
}

import { ApiClient } from '../gitops/api-client.js';

export type ServerOptions = { url?: string; token?: string };

function clientOf(options: ServerOptions): ApiClient {
  return new ApiClient(options.url ?? process.env.CDN_API_URL ?? 'http://127.0.0.1:8080', options.token ?? process.env.CDN_API_TOKEN);
}

function when(seconds: number | null | undefined): string {
  return seconds ? new Date(seconds * 1000).toISOString() : 'never';
}

function shortSha(sha: string | null | undefined): string {
  return sha ? sha.slice(0, 12) : '(no commit)';
}

type Run = { id: string; repo: string; commit_sha: string | null; trigger: string; status: string; started_at: number; finished_at: number | null; counts: Record<string, number>; error: string | null; problems: string[]; drift: unknown[]; reverted: unknown[]; orphaned: string[]; not_in_git: unknown[] };
type RepoStatus = { repo: string; branch: string | null; state: string; last_run: Run; last_good_commit: string | null; last_good_at: number | null; orphaned: string[] };

/** `cdn status`: the controller's state per repository, from GET /api/v1/gitops/status. */
export async function runStatus(options: ServerOptions & { json?: boolean }): Promise<void> {
  const { repos } = (await clientOf(options).request('GET', '/api/v1/gitops/status')).data as { repos: RepoStatus[] };
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ repos }, null, 2)}\n`);
    return;
  }
  if (!repos.length) process.stdout.write('no GitOps runs recorded yet\n');
  for (const repo of repos) {
    const run = repo.last_run;
    process.stdout.write(`${repo.repo}${repo.branch ? ` (${repo.branch})` : ''}: ${repo.state}\n`);
    process.stdout.write(`  last run   ${run.status} at ${shortSha(run.commit_sha)}, ${when(run.finished_at ?? run.started_at)} (${run.trigger})\n`);
    process.stdout.write(`  last good  ${shortSha(repo.last_good_commit)}, ${when(repo.last_good_at)}\n`);
    if (run.error) process.stdout.write(`  error      ${run.error}\n`);
    for (const problem of run.problems.slice(0, 10)) process.stdout.write(`  problem    ${problem}\n`);
    if (run.drift.length) process.stdout.write(`  drift      ${run.drift.length} item(s) changed through the API, left as they are\n`);
    if (repo.orphaned.length) process.stdout.write(`  orphaned   ${repo.orphaned.join(', ')}\n`);
  }
}

/** `cdn runs`: the recorded reconcile runs, newest first. */
export async function runRuns(options: ServerOptions & { json?: boolean; limit?: string }): Promise<void> {
  const limit = Number(options.limit ?? 20);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new Error(`--limit must be a whole number from 1 to 500, got ${options.limit}`);
  const runs = (await clientOf(options).request('GET', `/api/v1/gitops/runs?limit=${limit}`)).data as Run[];
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ runs }, null, 2)}\n`);
    return;
  }
  for (const run of runs) {
    const counts = ['creates', 'updates', 'deletes', 'drift', 'reverted', 'orphaned'].filter((key) => run.counts[key]).map((key) => `${key}=${run.counts[key]}`).join(' ');
    process.stdout.write(`${when(run.started_at)}  ${run.status.padEnd(10)} ${shortSha(run.commit_sha)}  ${run.trigger.padEnd(8)} ${counts}${run.error ? `  ${run.error}` : ''}\n`);
  }
  if (!runs.length) process.stdout.write('no GitOps runs recorded yet\n');
}

/** `cdn accept-plan`: lets the controller apply one commit's plan that the safety gate refused. */
export async function runAcceptPlan(options: ServerOptions & { repo: string; commit: string; reason: string }): Promise<void> {
  const accepted = (await clientOf(options).request('POST', '/api/v1/gitops/acceptances', { repo: options.repo, commit_sha: options.commit, reason: options.reason })).data;
  process.stdout.write(`accepted the refused plan of ${accepted.repo} at ${shortSha(accepted.commit_sha)}; the controller applies it at its next reconcile\n`);
}

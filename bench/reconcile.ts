// npm run bench:reconcile — a git repository of 500 domains (10 records, 2 origins, 10 rules each)
// reconciled by the controller inside `cdn core` (own process, fresh database). Prints the first
// full apply, a no-op reconcile (load + validate + live read + plan), the commit-to-applied
// latency of a one-record change announced by a signed push hook, and the first full apply by
// `cdn apply` run as its own process against a second fresh core.
// Targets: the first apply under 10 s (issue #13); no-op under 3 s, one-record change applied under
// 1 s after the webhook (issue #4). The first apply runs from the core's start: the controller begins
// once the core listens, so the time after that is the apply (fetch, load, plan, writes, record).
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startCoreProcess } from './core-process.js';
import { simpleGit } from 'simple-git';
import { ApiClient } from '../src/gitops/api-client.js';
import { buildPlan } from '../src/gitops/engine.js';
import { loadDesiredState } from '../src/gitops/load.js';
import { summaryLine } from '../src/gitops/print.js';
import { createTestDatabase, dropTestDatabase, stopSharedServer } from '../test/support/database.js';
import { writeBenchRepository } from './gitops-fixture.js';

const DOMAINS = Number(process.env.BENCH_DOMAINS ?? 500);
const SECRET = 'bench-webhook-secret';

function runCli(args: string[]): Promise<{ stdout: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/cdn.js', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ stdout, code }));
  });
}

async function runOf(client: ApiClient, sha: string): Promise<Record<string, any>> {
  for (;;) {
    const run = (await client.request('GET', '/api/v1/gitops/runs?limit=5')).data.find((candidate: { commit_sha: string }) => candidate.commit_sha === sha);
    if (run) return run;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const url = await createTestDatabase();
const dir = await mkdtemp(path.join(tmpdir(), 'cdn-bench-reconcile-'));
const work = path.join(dir, 'work');
await writeBenchRepository(work, DOMAINS);
await simpleGit().init(true, [path.join(dir, 'remote.git'), '--initial-branch=main']);
const git = simpleGit(work);
await git.init(['--initial-branch=main']);
await git.addConfig('user.email', 'bench@example.net').addConfig('user.name', 'Bench').addRemote('origin', path.join(dir, 'remote.git'));
await git.add('.').commit('500 domains').push('origin', 'main');
const firstSha = (await git.revparse(['HEAD'])).trim();

// The first apply by the controller in `cdn core`, then no-op reconciles and webhook-announced one-record changes.
async function controllerRounds(): Promise<void> {
  const started = performance.now();
  const { base, stop } = await startCoreProcess(url, {
    CDN_GITOPS_REPO: `file://${path.join(dir, 'remote.git')}`,
    CDN_GITOPS_INTERVAL_SECONDS: '3600',
    CDN_GITOPS_WEBHOOK_SECRET: SECRET,
    CDN_DATA_DIR: path.join(dir, 'data'),
  });
  const listened = performance.now();
  const client = new ApiClient(base);
  try {
    const first = await runOf(client, firstSha);
    const applied = performance.now();
    console.log(`first full apply by the controller    ${((applied - listened) / 1000).toFixed(2)} s after the core listened (${((applied - started) / 1000).toFixed(2)} s with its start) — status ${first.status}, ${JSON.stringify(first.counts)}`);
    for (const failed of first.domains.filter((domain: { ok: boolean }) => !domain.ok).slice(0, 3)) console.log(`  failed: ${failed.domain}: ${failed.error}`);

    for (const round of [1, 2]) {
      const noopStarted = performance.now();
      const planned = await buildPlan(client, await loadDesiredState(work));
      console.log(`no-op reconcile, run ${round}               ${((performance.now() - noopStarted) / 1000).toFixed(2)} s — ${summaryLine(planned.plan)}`);
    }

    for (const round of [1, 2, 3]) {
      const file = path.join(work, 'domains', `bench${round}.example.yaml`);
      await writeFile(file, (await readFile(file, 'utf8')).replace('name: host0, content:', 'name: host0, ttl: 600, content:'));
      await git.add('.').commit(`one record, round ${round}`).push('origin', 'main');
      const sha = (await git.revparse(['HEAD'])).trim();
      const body = JSON.stringify({ ref: 'refs/heads/main', after: sha });
      const hookAt = performance.now();
      const answer = await fetch(`${base}/api/v1/gitops/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}` }, body });
      if (answer.status !== 202) throw new Error(`webhook answered ${answer.status}`);
      const run = await runOf(client, sha);
      console.log(`one-record change, webhook to applied ${((performance.now() - hookAt) / 1000).toFixed(2)} s — status ${run.status}, ${JSON.stringify(run.counts)}`);
    }
  } finally {
    await stop();
    await dropTestDatabase(url);
  }
}

// The same first apply by `cdn apply`, a process of its own as CI runs it, against a second fresh core.
async function firstApplyByCli(): Promise<void> {
  const secondUrl = await createTestDatabase();
  const second = await startCoreProcess(secondUrl, { CDN_DATA_DIR: path.join(dir, 'data-2') });
  try {
    const applyStarted = performance.now();
    const { stdout, code } = await runCli(['apply', work, '--url', second.base, '--json']);
    const outcome = JSON.parse(stdout) as { status: string };
    console.log(`first full apply by cdn apply         ${((performance.now() - applyStarted) / 1000).toFixed(2)} s (its own process: load, plan, writes) — exit ${code}, status ${outcome.status}`);
  } finally {
    await second.stop();
    await dropTestDatabase(secondUrl);
  }
}

try {
  await controllerRounds();
  await firstApplyByCli();
} finally {
  await rm(dir, { recursive: true, force: true });
  await stopSharedServer();
}

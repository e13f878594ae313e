// npm run bench:reconcile — a repository of 500 domains (10 records, 2 origins, 10 rules each)
// against a `cdn core` in its own process on a fresh database: time of the first full apply and of
// a no-op reconcile (load + validate + read live state + plan). Targets (issue #4): no-op under 3 s.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { ApiClient } from '../src/gitops/api-client.js';
import { applyPlan, buildPlan } from '../src/gitops/engine.js';
import { loadDesiredState } from '../src/gitops/load.js';
import { summaryLine } from '../src/gitops/print.js';
import { createTestDatabase, dropTestDatabase, stopSharedServer } from '../test/support/database.js';
import { writeBenchRepository } from './gitops-fixture.js';

const DOMAINS = Number(process.env.BENCH_DOMAINS ?? 500);

function startCore(url: string): Promise<{ child: ChildProcess; base: string }> {
  const env = { ...process.env, DATABASE_URL: url, CDN_CORE_PORT: '0', CDN_LOG_LEVEL: 'info' };
  const child = spawn(process.execPath, ['bin/cdn.js', 'core'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`core exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      if (entry.msg === 'core listening') resolve({ child, base: entry.url! });
    });
  });
}

async function timed<T>(title: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  console.log(`${title.padEnd(34)} ${((performance.now() - started) / 1000).toFixed(2)} s`);
  return result;
}

const url = await createTestDatabase();
const repo = await mkdtemp(path.join(tmpdir(), 'cdn-bench-reconcile-'));
const { child, base } = await startCore(url);
try {
  await writeBenchRepository(repo, DOMAINS);
  const client = new ApiClient(base);
  const first = await timed(`first full apply (${DOMAINS} domains)`, async () => {
    const planned = await buildPlan(client, await loadDesiredState(repo));
    const results = await applyPlan(client, planned);
    return { planned, failed: results.filter((result) => !result.ok).length, calls: results.reduce((sum, result) => sum + result.applied, 0) };
  });
  console.log(`  ${summaryLine(first.planned.plan)}; ${first.calls} API calls; ${first.failed} domain(s) failed`);
  for (const round of [1, 2]) {
    const noop = await timed(`no-op reconcile, run ${round}`, async () => buildPlan(client, await loadDesiredState(repo)));
    console.log(`  ${summaryLine(noop.plan)}`);
  }
} finally {
  child.removeAllListeners('exit');
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  await rm(repo, { recursive: true, force: true });
  await dropTestDatabase(url);
  await stopSharedServer();
}

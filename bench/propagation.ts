// npm run bench:propagation — how fast a change reaches every edge, what it costs each edge, and what
// an idle fleet costs the core (issue #25). For each of BENCH_PROPAGATION_DOMAINS (default
// "1000,10000") active domains of bench:onboard's shape (loaded with SQL): `cdn core` in its own
// process with production defaults (CDN_ENV=production) and its GitOps controller on a local bare
// repository (webhook on, the default 15 s interval), and BENCH_PROPAGATION_EDGES (default 20) real
// `cdn edge` processes on loopback (1 worker each, CDN_ENV=production). Over BENCH_PROPAGATION_CHANGES
// (default 50) one-record changes each, the bench times:
//   - API write → every edge serving it: from sending the record's POST to the moment the last edge's
//     worker activated the version that publishes it (`GET /api/v1/config/rollout?change=N`, N from
//     the write's X-CDN-Config-Change header, names that version, read every BENCH_PROPAGATION_POLL_MS,
//     default 100). The times are the processes' own: the core's log line "config snapshot published"
//     and each edge worker's "config activated" (pino's `time`, the same clock), read from their
//     output, so the bench asks the edges nothing while they work and an arrival is exact;
//   - git push → every edge serving it: a one-record commit to the GitOps domain's file, from the
//     `git push` (then the signed push webhook) to the last edge serving the version that publishes
//     the run (`?run=ID`).
// Bytes per edge: the first edge talks to the core through a proxy that counts the config answers'
// bytes on the wire (gzip, as the edge asks); each API change's bytes are those answered from the
// write until the edge served it. Then the core's CPU (from /proc) over BENCH_PROPAGATION_IDLE_SECONDS
// (default 30) with only the real edges, and with BENCH_PROPAGATION_IDLE_EDGES (default 1,000)
// simulated idle edges held open as well (bench/idle-fleet.ts, bench:idle-edges' fleet).
// BENCH_CORE_NODE_ARGS and BENCH_EDGE_NODE_ARGS are node options for the core and for the edges
// (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof).
// Targets (issue #25): API write → all edges p95 under 1 s; git push → all edges p95 under 2 s; under
// 20 KB per edge for a one-record change at 10,000 domains; the idle fleet under 5% of one core.
import { createHmac } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { simpleGit, type SimpleGit } from 'simple-git';
import { startCoreProcess, type CoreProcess } from './core-process.js';
import { cpuSeconds, rssMb } from './edge-setup.js';
import { cpuPercent, holdIdleFleet } from './idle-fleet.js';
import { insertOnboardDomains, onboardDomain } from '../test/support/onboard-domains.js';
import { CoreProxy } from '../test/edge/agent/core-proxy.js';
import { createTestDatabase, dropTestDatabase, stopSharedServer } from '../test/support/database.js';
import { EdgeProcess } from '../test/support/edge-process.js';
import type { PublishTimings } from '../src/publish/publisher.js';

const DOMAIN_COUNTS = (process.env.BENCH_PROPAGATION_DOMAINS ?? '1000,10000').split(',').map(Number);
const CHANGES = Number(process.env.BENCH_PROPAGATION_CHANGES ?? 50);
const EDGES = Number(process.env.BENCH_PROPAGATION_EDGES ?? 20);
const POLL_MS = Number(process.env.BENCH_PROPAGATION_POLL_MS ?? 100);
const IDLE_EDGES = Number(process.env.BENCH_PROPAGATION_IDLE_EDGES ?? 1000);
const IDLE_SECONDS = Number(process.env.BENCH_PROPAGATION_IDLE_SECONDS ?? 30);
const TOKEN = 'bench-propagation-api-token';
const EDGE_TOKEN = 'cdnedge_bench-propagation-0123456789abcdefghij';
const WEBHOOK_SECRET = 'bench-propagation-webhook-secret';
const CLEARANCE_SECRET = 'bench-propagation-clearance-secret-0123456789';
/** The domain the GitOps repository holds; every other one is left to the API. */
const GITOPS_DOMAIN = onboardDomain(1);
const SERVE_TIMEOUT_MS = 120_000;
const KB = 1024;

/** `publishedAt`: when the core logged each version it published (ms since the epoch), and how long its build and store took. */
type Core = CoreProcess & { api: (method: string, path: string, body?: unknown) => Promise<{ data: any; headers: Headers }>; publishedAt: Map<number, number>; publishTimings: Map<number, PublishTimings> };

async function coreWithApi(url: string, env: Record<string, string>): Promise<Core> {
  const publishedAt = new Map<number, number>();
  const publishTimings = new Map<number, PublishTimings>();
  const core = await startCoreProcess(url, env, (entry) => {
    if (entry.msg !== 'config snapshot published' || typeof entry.version !== 'number') return;
    // Logged once older versions are pruned; edges hear of the version at its commit, before that.
    publishedAt.set(entry.version, entry.time! - (entry.prune_ms as number));
    publishTimings.set(entry.version, entry as unknown as PublishTimings);
  });
  const api = async (method: string, pathWithQuery: string, body?: unknown) => {
    const response = await fetch(`${core.base}${pathWithQuery}`, { method, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${pathWithQuery} answered ${response.status}: ${text.slice(0, 300)}`);
    return { data: JSON.parse(text).data, headers: response.headers };
  };
  return { ...core, api, publishedAt, publishTimings };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const nearestRank = (sorted: number[], p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
const ms = (value: number) => `${value.toFixed(0)} ms`;
function summary(values: number[], format: (value: number) => string = ms): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `p50 ${format(nearestRank(sorted, 0.5))}, p95 ${format(nearestRank(sorted, 0.95))}, max ${format(sorted[sorted.length - 1])}`;
}

/** Polls `check` every POLL_MS until it answers a value, or fails after `what` took SERVE_TIMEOUT_MS. */
async function poll<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + SERVE_TIMEOUT_MS;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(POLL_MS);
  }
}

type Arrivals = { version: number; published: number; edges: number[] };

/** Each edge's worker activations, read from its output as it grows: version → when (ms since the epoch). */
const activations = new Map<EdgeProcess, { read: number; at: Map<number, number> }>();

function activatedAt(edge: EdgeProcess, version: number): number | undefined {
  const seen = activations.get(edge) ?? { read: 0, at: new Map<number, number>() };
  activations.set(edge, seen);
  const end = edge.output.lastIndexOf('\n') + 1;
  for (const line of edge.output.slice(seen.read, end).split('\n')) {
    if (!line.includes('"config activated"')) continue;
    const entry = JSON.parse(line) as { time: number; version: number };
    if (!seen.at.has(entry.version)) seen.at.set(entry.version, entry.time);
  }
  seen.read = end;
  const times = [...seen.at].filter(([activated]) => activated >= version).map(([, time]) => time);
  return times.length ? Math.min(...times) : undefined;
}

/**
 * Milliseconds from `started` (ms since the epoch) until the core published `target` (the version
 * that publishes the change), and until each edge's worker activated it or a later one, by their
 * own log lines.
 */
async function untilEveryEdgeServes(core: Core, edges: EdgeProcess[], started: number, target: Promise<number>): Promise<Arrivals> {
  const version = await target;
  const published = await poll(`the core to log version ${version} published`, async () => core.publishedAt.get(version));
  const arrivals = await everyEdgeServing(edges, version);
  return { version, published: published - started, edges: arrivals.map((arrival) => arrival - started) };
}

/** When each edge's worker activated `version` or a later one (ms since the epoch), once all have. */
const everyEdgeServing = (edges: EdgeProcess[], version: number) => Promise.all(edges.map((edge) => poll(`edge ${edge.port} to serve version ${version}`, async () => activatedAt(edge, version))));

/** p50/p95 of the rounds' publish, first edge and last edge, and of the publisher's build and store. */
function arrivalLines(core: Core, label: string, rounds: Arrivals[]): string {
  const timings = rounds.map((round) => core.publishTimings.get(round.version)!);
  return [
    `  ${label} → every edge serving it (${rounds.length} changes): ${summary(rounds.map((round) => Math.max(...round.edges)))}`,
    `    → the version published (the core's log, at its commit): ${summary(rounds.map((round) => round.published))}; → the first edge: ${summary(rounds.map((round) => Math.min(...round.edges)))}`,
    `    the publisher's wait from the change: ${summary(timings.map((timing) => timing.wait_ms ?? 0))}; its build: ${summary(timings.map((timing) => timing.build_ms))}; its store: ${summary(timings.map((timing) => timing.store_ms))}; then its pruning: ${summary(timings.map((timing) => timing.prune_ms))}`,
  ].join('\n');
}

/** The version that publishes config change `change` (rollout `?change=N`), once there is one. */
const versionOfChange = (core: Core, query: string) =>
  poll(`a version for ${query}`, async () => ((await core.api('GET', `/api/v1/config/rollout?${query}`)).data.version as number | null) ?? undefined);

/** Sum of the config answers' bytes the proxy has seen answered so far. */
const configBytes = (proxy: CoreProxy) => proxy.seen.filter((seen) => seen.path.startsWith('/api/v1/edge/config')).reduce((sum, seen) => sum + (seen.answerBytes ?? 0), 0);

type Repository = { git: SimpleGit; work: string; remote: string; records: string[] };

async function createRepository(dir: string): Promise<Repository> {
  const work = path.join(dir, 'work');
  const remote = path.join(dir, 'remote.git');
  await mkdir(path.join(work, 'domains'), { recursive: true });
  await simpleGit().init(true, [remote, '--initial-branch=main']);
  const git = simpleGit(work);
  await git.init(['--initial-branch=main']);
  await git.addConfig('user.email', 'bench@example.net').addConfig('user.name', 'Bench').addRemote('origin', remote);
  // Repository options alone (their defaults) are a desired state without domains: the controller's
  // runs before the GitOps domain's file is committed change nothing.
  await writeFile(path.join(work, 'cdn-gitops.yaml'), 'max_delete_percent: 25\n');
  await git.add('.').commit('no domains yet').push('origin', 'main');
  return { git, work, remote, records: [] };
}

/** Commits the GitOps domain's file with one more record (none the first time), pushes, announces it by webhook; answers the commit's sha. */
async function pushOneRecord(core: Core, repository: Repository, round: number, timing?: { started: number }): Promise<string> {
  if (round > 0) repository.records.push(`  - { type: A, name: git-${round}, content: 192.0.2.78, proxied: true }`);
  // prune: false keeps the records and origins the domain was loaded with, which the file does not list.
  const file = [`domain: ${GITOPS_DOMAIN}`, 'policy: { prune: false }', repository.records.length ? 'records:' : 'records: []', ...repository.records, ''].join('\n');
  await writeFile(path.join(repository.work, 'domains', `${GITOPS_DOMAIN}.yaml`), file);
  await repository.git.add('.').commit(`one record, round ${round}`);
  const sha = (await repository.git.revparse(['HEAD'])).trim();
  if (timing) timing.started = Date.now();
  await repository.git.push('origin', 'main');
  const body = JSON.stringify({ ref: 'refs/heads/main', after: sha });
  const answer = await fetch(`${core.base}/api/v1/gitops/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex')}` }, body });
  if (answer.status !== 202) throw new Error(`webhook answered ${answer.status}: ${await answer.text()}`);
  return sha;
}

/** The version that publishes the GitOps run of commit `sha`, once the run is recorded and published. */
async function versionOfCommit(core: Core, sha: string): Promise<number> {
  const run = await poll(`the GitOps run of ${sha}`, async () => ((await core.api('GET', '/api/v1/gitops/runs?limit=5')).data as { id: string; commit_sha: string }[]).find((candidate) => candidate.commit_sha === sha));
  const status = (run as { status?: string }).status;
  if (status !== 'applied' && status !== 'no_changes') throw new Error(`the GitOps run of ${sha} ended ${status}: ${JSON.stringify(run).slice(0, 500)}`);
  return versionOfChange(core, `run=${run.id}`);
}

async function startEdges(core: Core, proxy: CoreProxy, dir: string): Promise<EdgeProcess[]> {
  // At info, each worker logs "config activated" with the version: the arrival times.
  const env = { CDN_ENV: 'production', CDN_EDGE_CLEARANCE_SECRET: CLEARANCE_SECRET, CDN_EDGE_HEARTBEAT_SECONDS: '5', CDN_LOG_LEVEL: 'info' };
  const nodeArgs = (process.env.BENCH_EDGE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  return Promise.all(
    Array.from({ length: EDGES }, (_, n) =>
      EdgeProcess.start({ coreUrl: n === 0 ? proxy.url : core.base, token: EDGE_TOKEN, edgeId: `bench-edge-${n}`, workers: 1, dataDir: path.join(dir, `edge-${n}`), env, waitReady: false, nodeArgs }),
    ),
  );
}

/** CPU seconds all the edges' processes (primaries and workers) have used so far. */
async function edgesCpuSeconds(edges: EdgeProcess[]): Promise<number> {
  const pids = (await Promise.all(edges.map(async (edge) => [edge.child.pid!, ...(await edge.workerPids())]))).flat();
  return cpuSeconds(pids);
}

/** Resident memory of the edges' primaries and workers, and of the core, after the changes. */
async function memoryLine(core: Core, edges: EdgeProcess[]): Promise<string> {
  const primaries = await Promise.all(edges.map((edge) => rssMb(edge.child.pid!)));
  const workers = await Promise.all((await Promise.all(edges.map((edge) => edge.workerPids()))).flat().map(rssMb));
  const total = [...primaries, ...workers].reduce((sum, mb) => sum + mb, 0);
  const mb = (value: number) => `${value.toFixed(0)} MB`;
  return `  resident memory after the changes: edge primaries ${summary(primaries, mb)}; workers ${summary(workers, mb)}; all ${edges.length} edges ${(total / 1024).toFixed(2)} GiB; the core ${mb(await rssMb(core.child.pid!))}`;
}

async function apiWrites(core: Core, edges: EdgeProcess[], proxy: CoreProxy, domainIds: string[]): Promise<void> {
  const rounds: Arrivals[] = [];
  const bytes: number[] = [];
  const answered: number[] = [];
  const cpuBefore = await edgesCpuSeconds(edges);
  for (let round = 1; round <= CHANGES; round++) {
    const domainId = domainIds[round % domainIds.length];
    const bytesBefore = configBytes(proxy);
    const started = Date.now();
    const written = await core.api('POST', `/api/v1/domains/${domainId}/dns/records`, { type: 'A', name: `api-${round}`, content: '192.0.2.77', proxied: true });
    answered.push(Date.now() - started);
    const change = written.headers.get('x-cdn-config-change');
    if (!change) throw new Error('the write carried no X-CDN-Config-Change');
    rounds.push(await untilEveryEdgeServes(core, edges, started, versionOfChange(core, `change=${change}`)));
    bytes.push(configBytes(proxy) - bytesBefore);
  }
  const cpuPerEdge = ((await edgesCpuSeconds(edges)) - cpuBefore) / CHANGES / edges.length;
  console.log(arrivalLines(core, 'API write', rounds));
  console.log(`    the write answered in ${summary(answered)}`);
  console.log(`    CPU per edge (primary + worker) per change: ${(cpuPerEdge * 1000).toFixed(0)} ms, all included (applying it, heartbeats)`);
  console.log(`  bytes one edge received per one-record change (config answers, gzip): ${summary(bytes, (value) => `${(value / KB).toFixed(2)} KB`)}`);
}

async function gitPushes(core: Core, edges: EdgeProcess[], repository: Repository): Promise<void> {
  const rounds: Arrivals[] = [];
  for (let round = 1; round <= CHANGES; round++) {
    const timing = { started: 0 };
    const sha = await pushOneRecord(core, repository, round, timing);
    rounds.push(await untilEveryEdgeServes(core, edges, timing.started, versionOfCommit(core, sha)));
  }
  console.log(arrivalLines(core, 'git push + webhook', rounds));
}

/** The core's own count of pool edges serving the latest version, once it says converged. */
async function convergedRollout(core: Core): Promise<string> {
  const rollout = await poll('the rollout to converge', async () => {
    const { data } = await core.api('GET', '/api/v1/config/rollout');
    return data.status === 'converged' ? (data as { summary: string }) : undefined;
  });
  return rollout.summary;
}

async function idleFleet(core: Core): Promise<void> {
  const pid = core.child.pid!;
  const version = (await core.api('GET', '/api/v1/config/rollout')).data.version as number;
  const baseline = await cpuPercent(pid, IDLE_SECONDS);
  const fleet = await holdIdleFleet({ base: core.base, pid, edgeToken: EDGE_TOKEN, count: IDLE_EDGES, version, wait: 30, seconds: IDLE_SECONDS });
  for (const edge of fleet.edges) edge.stop();
  const { percent, answers, failures, residentMiB } = fleet.cost;
  console.log(`  core CPU with only the ${EDGES} real edges: ${baseline.toFixed(2)}% of one core over ${IDLE_SECONDS} s; with ${IDLE_EDGES} simulated idle edges held open too: ${percent.toFixed(2)}% (${(percent - baseline).toFixed(2)} points more), ${residentMiB.toFixed(0)} MiB resident, ${answers} re-issues, ${failures} failures`);
}

async function run(domains: number): Promise<void> {
  const url = await createTestDatabase();
  const dir = await mkdtemp(path.join(tmpdir(), 'cdn-bench-propagation-'));
  const repository = await createRepository(dir);
  const core = await coreWithApi(url, {
    CDN_ENV: 'production',
    CDN_API_TOKEN: TOKEN,
    CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN,
    CDN_GITOPS_REPO: `file://${repository.remote}`,
    CDN_GITOPS_WEBHOOK_SECRET: WEBHOOK_SECRET,
    CDN_DATA_DIR: path.join(dir, 'data'),
  });
  const proxy = await CoreProxy.start(core.base);
  let edges: EdgeProcess[] = [];
  try {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    await insertOnboardDomains(pool, domains);
    const domainIds = (await pool.query<{ id: string }>(`SELECT id FROM domains WHERE domain <> $1 ORDER BY domain`, [GITOPS_DOMAIN])).rows.map((row) => row.id);
    await pool.end();
    const loaded = (await core.api('POST', '/api/v1/config/snapshots/rebuild')).data.version as number;
    const starting = performance.now();
    edges = await startEdges(core, proxy, dir);
    await Promise.all(edges.map((edge) => edge.waitReady(loaded, SERVE_TIMEOUT_MS * 2)));
    console.log(`${domains.toLocaleString('en')} domains: ${EDGES} edges serve version ${loaded} ${((performance.now() - starting) / 1000).toFixed(1)} s after they started`);

    // The GitOps controller takes the domain over (its first run), unmeasured.
    await everyEdgeServing(edges, await versionOfCommit(core, await pushOneRecord(core, repository, 0)));

    const load = () => loadavg()[0].toFixed(2);
    console.log(`  machine load (1-minute average) before the changes: ${load()}`);
    await apiWrites(core, edges, proxy, domainIds);
    await gitPushes(core, edges, repository);
    console.log(await memoryLine(core, edges));
    console.log(`  rollout API, once the edges' heartbeats (every 5 s) report it: ${await convergedRollout(core)}`);
    await idleFleet(core);
    console.log(`  machine load (1-minute average) at the end: ${load()}`);
  } finally {
    await Promise.all(edges.map((edge) => edge.stop()));
    await proxy.close();
    await core.stop();
    await dropTestDatabase(url);
    await rm(dir, { recursive: true, force: true });
  }
}

try {
  for (const domains of DOMAIN_COUNTS) await run(domains);
} finally {
  await stopSharedServer();
}

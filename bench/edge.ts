// npm run bench:edge — the edge (`cdn edge`, 2 workers) against nginx (Debian nginx-light, 2 workers,
// proxy_cache) in front of the same origin, driven by wrk (apt-get install wrk nginx-light) in one run.
// The core (own process, fresh database) publishes 1,000 domains; the tested one carries 50 rules.
// Prints req/s and p99 for a cache HIT and for a MISS (plain proxy) on both and their ratios, the
// latency a MISS adds over asking the origin directly (at saturation, and at a paced load below it: interleaved rounds once
// the machine is quiet, medians, with the core's CPU during each run),
// the RSS of each edge worker holding 10,000 cached objects, and the failed requests while 20
// snapshots are activated under load. The same run measures bare node:http (bench/bare-node.mjs:
// a Map server and a keep-alive proxy, 2 workers each, none of the edge's work): the ceiling of a
// Node edge on this machine, printed beside the edge; and, for the MISS, the same bare proxy on
// undici's dispatcher, the HTTP client the edge sends origin requests with.
// Beside req/s, each saturation run prints the server's CPU per request: the utime + stime (/proc) of
// every process of that server (nginx's master and workers, bare node:http's primary and workers, the
// edge's primary and workers; not wrk, the origin or the core) over the run, divided by the requests
// wrk completed. The saturation runs repeat BENCH_EDGE_ROUNDS times (default 3), the servers
// interleaved, and the medians of the CPU ratios are printed (issue #26: edge HIT at most 1.2x the
// bare Map server's CPU per request, edge MISS at most 1.3x the bare keep-alive proxy's).
// Targets (issue #11): HIT >= 0.7x nginx, MISS >= 0.4x nginx, added MISS p99 < 2 ms, RSS < 300 MB
// per worker, zero failed requests during swaps. Between the HIT and the MISS, where valgrind is
// installed, instructions per HIT counted under callgrind (bench/instructions.ts: one worker each,
// a fixed number of requests) of the bare Map server, the edge and the edge without its metrics
// listener: ratios a busy machine cannot move (issue #26's HIT ratio; issue #27: the metrics under
// 3% of a HIT). The edge runs with the telemetry batch size SPEC.md gives production (500;
// development's 50 makes the core, on the same two CPUs, pay a transaction per 50 events).
// Then, where taskset and two CPUs are there, pinned rounds: nginx, the bare server and the edge with
// one worker each, every process of theirs on CPU 1 and wrk (one thread, 32 connections) on CPU 0,
// HIT and MISS, medians of the interleaved rounds: CPU per request of a server that has its CPU to
// itself, far steadier than the unpinned rounds on a shared machine (BENCH_EDGE_PINNED_SECONDS, default 6).
// BENCH_EDGE_SECONDS (default 10) sets each run's length; BENCH_EDGE_ONLY=hit, miss, paced, instructions or pinned
// runs only that part; BENCH_EDGE_NODE_ARGS are node options for the edge and its workers (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof);
// BENCH_EDGE_BY_FUNCTION=1 also prints, from the instruction counts, the functions (compiled JavaScript named from V8's perf map)
// whose instructions per HIT differ most between the edge and the bare Map server (docs/runtime.md);
// BENCH_EDGE_METRICS=off starts the edge without its metrics listener (CDN_EDGE_METRICS_PORT=0: its workers count nothing),
// for measuring what the metrics cost; BENCH_EDGE_METRICS=compare runs a second edge without them beside the first, in
// the same HIT rounds, and prints the median of edge/edge-without-metrics (issue #27: under 3% on a HIT).
// Each round measures the servers in turn, in reverse order every other round, so no server always goes first.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { startCoreProcess } from './core-process.js';
import { childPids, cpuSeconds, DOMAINS, edgeVersion, get as getHost, loadDomains, publish, rssMb, startBareNode, startOrigin, waitFor, waitForQuiet } from './edge-setup.js';
import { paced, saturate, type PacedResult, type WrkResult } from './edge-load.js';
import { haveCallgrind, measureInstructions, spawnUnderCallgrind, type Instructions } from './instructions.js';
import { instructionsByFunction, largestDifferences } from './instructions-by-function.js';
import { requireWrk } from './wrk.js';
import { median } from './median.js';
import { freePort } from '../test/support/cluster.js';
import { createTestDatabase, dropTestDatabase, stopSharedServer } from '../test/support/database.js';

const TOKEN = 'cdnedge_bench-edge-token-0123456789abcdef';
const SECONDS = Number(process.env.BENCH_EDGE_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_EDGE_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_EDGE_CONNECTIONS ?? 64);
const HOST = 'www.bench1.example';
const NGINX = '/usr/sbin/nginx';
const CACHED_OBJECTS = 10000;
const SWAPS = 20;
/** The pinned rounds: each server with one worker, all its processes on CPU 1, wrk (one thread) on CPU 0. */
const PINNED_SECONDS = Number(process.env.BENCH_EDGE_PINNED_SECONDS ?? 6);
const PINNED_CONNECTIONS = 32;
/** The unmeasured load each server gets before a set of rounds (V8 compiles the path meanwhile). */
const WARM_UP_SECONDS = 2;
/** The instruction count's windows (bench/instructions.ts) and the requests in each. */
const INSTRUCTION_WINDOWS = 3;
const INSTRUCTION_REQUESTS = 4000;
/** The paced load: connections each pausing about this long between requests (~3,000 req/s in all, a third of what the edge serves at saturation). */
const PACED_CONNECTIONS = 32;
const PACED_PAUSE_MS = 10;

const children: ChildProcess[] = [];
const get = (port: number, pathname: string, agent?: http.Agent) => getHost(port, HOST, pathname, agent);

function exitWithout(what: string): never {
  console.error(`bench:edge needs ${what}`);
  process.exit(1);
}

async function nginxConfig(dir: string, port: number, originPort: number, workers = 2): Promise<string> {
  const file = path.join(dir, 'nginx.conf');
  await writeFile(
    file,
    `user root;
worker_processes ${workers};
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  proxy_cache_path ${dir}/cache levels=1:2 keys_zone=bench:64m max_size=1g inactive=60m use_temp_path=off;
  upstream origin { server 127.0.0.1:${originPort}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    server_tokens off;
    location / {
      proxy_pass http://origin;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_cache bench;
      proxy_cache_key $host$request_uri;
      add_header X-Cache $upstream_cache_status;
    }
  }
}
`,
  );
  return file;
}

/** 50 rules of every kind on the tested domain; only one (a response header) matches the benchmark paths. */
async function addRules(base: string, domainId: string): Promise<void> {
  const post = async (kind: string, body: object) => {
    const response = await fetch(`${base}/api/v1/domains/${domainId}/${kind}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (response.status !== 201) throw new Error(`POST ${kind} answered ${response.status}: ${await response.text()}`);
  };
  const paths = (value: string) => ({ paths: [{ kind: 'prefix', value }] });
  for (let n = 0; n < 10; n++) {
    await post('redirects', { name: `redirect ${n}`, match: { paths: [{ kind: 'exact', value: `/old/${n}` }] }, target: `/new/${n}` });
    await post('waf-rules', { name: `waf ${n}`, match: paths(`/admin/${n}`), action: 'block' });
    await post('ip-rules', { name: `ip ${n}`, cidr: `203.0.113.${n}/32`, action: 'block' });
    await post('headers', { name: `header ${n}`, match: paths(`/static/${n}`), header_name: `x-static-${n}`, value: 'yes' });
  }
  for (let n = 0; n < 4; n++) {
    await post('cache-rules', { name: `cache ${n}`, match: paths(`/assets/${n}/`), action: 'cache', edge_ttl_seconds: 600 });
    await post('page-rules', { name: `page ${n}`, url_pattern: `bench1.example/legacy/${n}/*`, settings: { cache_level: 'bypass' } });
  }
  await post('rate-limits', { name: 'login', match: { paths: [{ kind: 'exact', value: '/login' }], methods: ['POST'] }, requests: 10, period_seconds: 60 });
  await post('headers', { name: 'everywhere', header_name: 'x-served-by', value: 'bench-edge' });
}

const line = (label: string, result: WrkResult) => `${label.padEnd(38)} ${Math.round(result.rps).toLocaleString('en').padStart(8)} req/s   p99 ${result.p99Ms.toFixed(2).padStart(6)} ms   failed ${result.failed}`;
/** A paced run and the CPU the core used meanwhile. */
type PacedRun = PacedResult & { coreMsPerSecond: number };
const pacedLine = (label: string, result: PacedRun, direct: PacedResult) =>
  `${label.padEnd(38)} ${Math.round(result.rps).toLocaleString('en').padStart(8)} req/s   p50 ${result.p50Ms.toFixed(2)} ms   p99 ${result.p99Ms.toFixed(2).padStart(5)} ms (adds ${(result.p99Ms - direct.p99Ms).toFixed(2)})   failed ${result.failed}   core CPU ${result.coreMsPerSecond.toFixed(0)} ms/s`;
const ratio = (of: WrkResult, to: WrkResult) => `${(of.rps / to.rps).toFixed(2)}x`;

/** A server under test: its name, port and processes now (a primary and the children whose command line holds `command`). */
type Server = { label: string; port: number; pids: () => Promise<number[]> };
type Measured = WrkResult & { cpuUsPerRequest: number };
/** A saturation run of `pathname` on `port`; `seconds` shortens it (a warm-up). */
type Load = (port: number, pathname: string, seconds?: number) => Promise<WrkResult>;

function serverOf(label: string, port: number, child: ChildProcess, command: string): Server {
  return { label, port, pids: async () => [child.pid!, ...(await childPids(child.pid!, command))] };
}

/** CPU seconds of each process that is still there (nginx's cache loader, say, exits on its own). */
async function cpuOf(pids: number[]): Promise<Map<number, number>> {
  const seconds = new Map<number, number>();
  for (const pid of pids) await cpuSeconds([pid]).then((value) => seconds.set(pid, value), () => undefined);
  return seconds;
}

/** The CPU the processes there at both readings used between them. */
function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let used = 0;
  for (const [pid, seconds] of after) if (before.has(pid)) used += seconds - before.get(pid)!;
  return used;
}

const measuredLine = (label: string, result: Measured) => `${line(label, result)}   CPU ${result.cpuUsPerRequest.toFixed(1).padStart(6)} µs/request`;

requireWrk();
if (spawnSync(NGINX, ['-v']).error) exitWithout('nginx: apt-get install nginx-light');
const dir = await mkdtemp(path.join(tmpdir(), 'cdn-bench-edge-'));
const url = await createTestDatabase();
// Stops one child: SIGTERM, then SIGKILL if it is still there after 10 s.
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
  await exited;
  clearTimeout(timer);
}
const cleanup = async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 1500));
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
};
process.once('SIGINT', () => void cleanup().then(() => process.exit(130)));
try {
  const [originPort, nginxPort, edgePort, bareCachePort, bareProxyPort, undiciProxyPort] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
  children.push(await startOrigin(originPort));
  const bareCache = await startBareNode('cache', bareCachePort, originPort);
  const bareProxy = await startBareNode('proxy', bareProxyPort, originPort);
  const undiciProxy = await startBareNode('undici-proxy', undiciProxyPort, originPort);
  children.push(bareCache, bareProxy, undiciProxy);
  const wrk = (port: number, pathname: string, seconds = SECONDS) => saturate(`http://127.0.0.1:${port}${pathname}`, HOST, seconds, CONNECTIONS);
  // wrk on CPU 0 alone, against a server whose processes all run on CPU 1.
  const pinnedWrk = (port: number, pathname: string, seconds = PINNED_SECONDS) => saturate(`http://127.0.0.1:${port}${pathname}`, HOST, seconds, PINNED_CONNECTIONS, undefined, 0);
  // One saturation run of `server` (by `load`) with its processes' CPU over it.
  const measure = async (server: Server, pathname: string, load: Load): Promise<Measured> => {
    const pids = await server.pids();
    const before = await cpuOf(pids);
    const result = await load(server.port, pathname);
    return { ...result, cpuUsPerRequest: (cpuBetween(before, await cpuOf(pids)) / Math.max(1, result.requests)) * 1e6 };
  };
  // ROUNDS rounds of the servers in turn; each round printed, then the median CPU ratios of the last server (the edge) to each other one.
  // Each server is first warmed by WARM_UP_SECONDS of the same load, not measured: V8 compiles the path then, and
  // the edge has far more code to compile than the bare servers (a perf profile put 4% of an 8 s first round in it).
  const rounds = async (title: string, pathname: string, servers: Server[], load: Load = wrk): Promise<Measured[][]> => {
    for (const server of servers) await load(server.port, pathname, WARM_UP_SECONDS);
    const all: Measured[][] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const results: Measured[] = new Array(servers.length);
      const order = servers.map((_, index) => index);
      if (round % 2 === 0) order.reverse();
      for (const index of order) results[index] = await measure(servers[index], pathname, load);
      console.log(`${title}, round ${round} of ${ROUNDS}:`);
      servers.forEach((server, index) => console.log(measuredLine(`  ${server.label}`, results[index])));
      all.push(results);
    }
    const last = servers.length - 1;
    const ratios = servers.slice(0, last).map((server, index) => `${servers[last].label}/${server.label} ${median(all.map((results) => results[last].cpuUsPerRequest / results[index].cpuUsPerRequest)).toFixed(2)}x`);
    console.log(`${title}: CPU per request, medians of ${ROUNDS}: ${servers.map((server, index) => `${server.label} ${median(all.map((results) => results[index].cpuUsPerRequest)).toFixed(1)} µs`).join(', ')}; ratios ${ratios.join(', ')}`);
    return all;
  };
  // A paced MISS run, with the CPU the core (on the same CPUs, ingesting what an edge ships) used meanwhile.
  const pacedMiss = async (port: number): Promise<PacedRun> => {
    const before = await cpuSeconds([core.child.pid!]);
    const result = await paced(`http://127.0.0.1:${port}/miss/1`, HOST, SECONDS, PACED_CONNECTIONS, PACED_PAUSE_MS);
    return { ...result, coreMsPerSecond: (((await cpuSeconds([core.child.pid!])) - before) * 1000) / SECONDS };
  };
  const maxBytes = String(64 * 1024 * 1024);
  const core = await startCoreProcess(url, { CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN, CDN_PUBLISH_ENABLED: 'false', CDN_EDGE_CONFIG_MAX_BYTES: maxBytes });
  children.push(core.child);
  const tested = { id: (await loadDomains(url, originPort)).get('bench1.example')! };
  await addRules(core.base, tested.id);
  const version = await publish(core.base);

  const nginx = spawn(NGINX, ['-p', dir, '-c', await nginxConfig(dir, nginxPort, originPort)], { stdio: ['ignore', 'inherit', 'inherit'] });
  children.push(nginx);
  const nodeArgs = (process.env.BENCH_EDGE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // The environment of an edge serving on `port` with `workers` workers, with its metrics listener unless `metrics` is false.
  const edgeEnv = async (id: string, port: number, metrics: boolean, workers = 2): Promise<NodeJS.ProcessEnv> => ({
    ...process.env,
    CDN_EDGE_CORE_URL: core.base,
    CDN_EDGE_TOKEN: TOKEN,
    CDN_EDGE_ID: id,
    CDN_EDGE_WORKERS: String(workers),
    CDN_EDGE_HTTP_PORT: String(port),
    CDN_EDGE_HTTPS_PORT: String(await freePort()),
    CDN_EDGE_METRICS_PORT: metrics ? String(await freePort()) : '0',
    CDN_EDGE_DATA_DIR: path.join(dir, id),
    CDN_EDGE_CONFIG_MAX_BYTES: maxBytes,
    CDN_EDGE_TELEMETRY_BATCH_SIZE: '500',
    CDN_LOG_LEVEL: 'warn',
  });
  // An edge serving on `port`, with its metrics listener unless `metrics` is false.
  const startEdge = async (id: string, port: number, metrics: boolean): Promise<ChildProcess> => {
    const child = spawn(process.execPath, [...nodeArgs, 'bin/cdn.js', 'edge'], { env: await edgeEnv(id, port, metrics), stdio: ['ignore', 'inherit', 'inherit'] });
    children.push(child);
    await waitFor(`${id} to serve the snapshot`, async () => (await edgeVersion(port)) === version);
    return child;
  };
  const compareMetrics = process.env.BENCH_EDGE_METRICS === 'compare';
  const edge = await startEdge('bench-edge', edgePort, process.env.BENCH_EDGE_METRICS !== 'off');
  const withoutMetricsPort = await freePort();
  const withoutMetrics = compareMetrics ? await startEdge('bench-edge-without-metrics', withoutMetricsPort, false) : undefined;
  await waitFor('nginx', async () => (await get(nginxPort, '/hit/warm')).status === 200);
  console.log(`edge ready on snapshot v${version}: ${DOMAINS} domains, 50 rules on ${HOST}; ${SECONDS} s per run, ${CONNECTIONS} connections`);
  const nginxServer = serverOf('nginx', nginxPort, nginx, 'nginx');
  const edgeServer = serverOf('edge', edgePort, edge, 'cdn.js');
  const hitServers = { nginx: nginxServer, bare: serverOf('bare node:http Map server', bareCachePort, bareCache, 'bare-node'), edge: edgeServer };
  const withoutMetricsServer = withoutMetrics ? [serverOf('edge without metrics', withoutMetricsPort, withoutMetrics, 'cdn.js')] : [];
  const missServers = { nginx: nginxServer, bare: serverOf('bare node:http proxy', bareProxyPort, bareProxy, 'bare-node'), undici: serverOf('bare undici proxy', undiciProxyPort, undiciProxy, 'bare-node'), edge: edgeServer };

  const only = process.env.BENCH_EDGE_ONLY;
  if (only === undefined || only === 'hit') {
    for (const port of [nginxPort, edgePort, ...(withoutMetrics ? [withoutMetricsPort] : [])]) for (let n = 0; n < 4; n++) await get(port, '/hit/1');
    const results = await rounds('HIT', '/hit/1', [hitServers.nginx, hitServers.bare, ...withoutMetricsServer, hitServers.edge]);
    const last = results[results.length - 1];
    const [nginxHit, bareHit, edgeHit] = [last[0], last[1], last[last.length - 1]];
    console.log(`HIT ratio (last round) edge/nginx: ${ratio(edgeHit, nginxHit)} (target >= 0.7); bare node:http/nginx ${ratio(bareHit, nginxHit)}; edge/bare node:http ${ratio(edgeHit, bareHit)}`);
  }
  // Before the swaps, which add rules to the tested domain and publish new versions.
  if (only === undefined || only === 'instructions') await instructionCounts();
  if (only === undefined || only === 'pinned') await pinnedRounds();
  if (only === 'paced') await pacedRounds();
  if (only === undefined || only === 'miss') await missRssAndSwaps();

  // HIT and MISS rounds with each server on one worker, all its processes on CPU 1 and wrk on CPU 0:
  // CPU per request without the servers' workers and wrk taking turns on the same two CPUs, which
  // moves the unpinned rounds' ratios by a third between runs on a shared machine.
  async function pinnedRounds(): Promise<void> {
    if (availableParallelism() < 2 || spawnSync('taskset', ['-c', '1', 'true']).status !== 0) return console.log('pinned rounds: skipped, they need two CPUs and taskset (util-linux)');
    const onCpu1 = (command: string, args: string[], env: NodeJS.ProcessEnv = process.env): ChildProcess => {
      const child = spawn('taskset', ['-c', '1', command, ...args], { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      children.push(child);
      return child;
    };
    const nginxDir = path.join(dir, 'pinned-nginx');
    await mkdir(nginxDir);
    const [nginxPort, cachePort, proxyPort, edgePort] = [await freePort(), await freePort(), await freePort(), await freePort()];
    const bareScript = new URL('./bare-node.mjs', import.meta.url).pathname;
    const oneWorker = { ...process.env, BARE_NODE_WORKERS: '1' };
    const started = [
      onCpu1(NGINX, ['-p', nginxDir, '-c', await nginxConfig(nginxDir, nginxPort, originPort, 1)]),
      onCpu1(process.execPath, [bareScript, 'cache', String(cachePort), String(originPort)], oneWorker),
      onCpu1(process.execPath, [bareScript, 'proxy', String(proxyPort), String(originPort)], oneWorker),
      onCpu1(process.execPath, [...nodeArgs, 'bin/cdn.js', 'edge'], await edgeEnv('pinned-edge', edgePort, true, 1)),
    ];
    try {
      await waitFor('the pinned edge to serve the snapshot', async () => (await edgeVersion(edgePort)) === version);
      for (const port of [nginxPort, cachePort, proxyPort]) await waitFor(`the pinned server on ${port}`, async () => (await get(port, '/hit/1').catch(() => ({ status: 0 }))).status === 200);
      for (const port of [nginxPort, edgePort]) for (let n = 0; n < 4; n++) await get(port, '/hit/1');
      const [nginx, cache, proxy, edge] = started;
      const pinnedNginx = serverOf('nginx (1 worker)', nginxPort, nginx, 'nginx');
      const pinnedEdge = serverOf('edge (1 worker)', edgePort, edge, 'cdn.js');
      await rounds('HIT, pinned', '/hit/1', [pinnedNginx, serverOf('bare node:http Map server (1 worker)', cachePort, cache, 'bare-node'), pinnedEdge], pinnedWrk);
      await rounds('MISS, pinned', '/miss/1', [pinnedNginx, serverOf('bare node:http proxy (1 worker)', proxyPort, proxy, 'bare-node'), pinnedEdge], pinnedWrk);
    } finally {
      for (const child of started) await stopChild(child);
    }
  }

  // Instructions per HIT (bench/instructions.ts) of the bare Map server, the edge and the edge without its metrics, one after another.
  async function instructionCounts(): Promise<void> {
    if (!haveCallgrind()) return console.log('HIT instructions per request: skipped, valgrind is not installed (apt-get install valgrind)');
    const callgrindDir = path.join(dir, 'callgrind');
    await mkdir(callgrindDir);
    const measureOne = async (child: ChildProcess, command: string, port: number): Promise<Instructions> => {
      try {
        return await measureInstructions(child, command, callgrindDir, { port, host: HOST, pathname: '/hit/1' }, INSTRUCTION_REQUESTS, INSTRUCTION_WINDOWS);
      } finally {
        await stopChild(child);
      }
    };
    // BENCH_EDGE_BY_FUNCTION=1: the bare server and the edge with their compiled code named (V8's perf map), dumped by instruction.
    const byFunction = process.env.BENCH_EDGE_BY_FUNCTION === '1';
    const named = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => (byFunction ? { ...env, NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --perf-basic-prof`.trim() } : env);
    const barePort = await freePort();
    const bare = spawnUnderCallgrind(process.execPath, [new URL('./bare-node.mjs', import.meta.url).pathname, 'cache', String(barePort), String(originPort)], callgrindDir, named({ ...process.env, BARE_NODE_WORKERS: '1' }), byFunction);
    children.push(bare);
    const bareCount = await measureOne(bare, 'bare-node', barePort);
    const edgeUnderCallgrind = async (id: string, metrics: boolean): Promise<Instructions> => {
      const port = await freePort();
      const child = spawnUnderCallgrind(process.execPath, [...nodeArgs, 'bin/cdn.js', 'edge'], callgrindDir, named(await edgeEnv(id, port, metrics, 1)), byFunction);
      children.push(child);
      await waitFor(`${id} under callgrind to serve the snapshot`, async () => (await edgeVersion(port)) === version, 300000);
      return measureOne(child, 'cdn.js', port);
    };
    const withMetrics = await edgeUnderCallgrind('callgrind-edge', true);
    const withoutMetrics = await edgeUnderCallgrind('callgrind-edge-without-metrics', false);
    const thousands = (value: Instructions) => `${(value.perRequest / 1000).toFixed(1)}k (${value.windows.map((window) => (window / 1000).toFixed(1)).join(', ')})`;
    console.log(`HIT instructions per request (callgrind, one worker, median of ${INSTRUCTION_WINDOWS} windows of ${INSTRUCTION_REQUESTS.toLocaleString('en')} requests):`);
    console.log(`  bare node:http Map server ${thousands(bareCount)}; edge ${thousands(withMetrics)}; edge without metrics ${thousands(withoutMetrics)}`);
    console.log(`  edge/bare node:http Map server ${(withMetrics.perRequest / bareCount.perRequest).toFixed(2)}x; the metrics cost ${((withMetrics.perRequest / withoutMetrics.perRequest - 1) * 100).toFixed(1)}% of an edge HIT (target < 3%)`);
    if (byFunction) await printByFunction(withMetrics, bareCount);
  }
  // The functions whose instructions per HIT differ most between the edge and the bare server, each from its median window.
  async function printByFunction(edge: Instructions, bare: Instructions): Promise<void> {
    const ofMedianWindow = async (counted: Instructions) => {
      const map = `/tmp/perf-${counted.worker}.map`;
      try {
        return await instructionsByFunction(counted.dumps[counted.windows.indexOf(counted.perRequest)], map, INSTRUCTION_REQUESTS);
      } finally {
        await rm(map, { force: true });
      }
    };
    const lines = largestDifferences(await ofMedianWindow(edge), await ofMedianWindow(bare), 40);
    console.log(`HIT instructions per request by function, the 40 largest differences (edge, bare node:http Map server, difference):\n${lines.join('\n')}`);
  }
  // ROUNDS rounds of the paced MISS: the origin asked directly, then nginx, the bare proxies and the
  // edge in turn (reversed every other round); what each adds to the p99 over the origin's in the same
  // round, then the medians (issue #26: the edge at most the bare node:http proxy's plus 1 ms).
  async function pacedRounds(): Promise<void> {
    const servers: [string, number][] = [['nginx plain proxy', nginxPort], ['bare node:http proxy', bareProxyPort], ['bare undici proxy', undiciProxyPort], ['edge', edgePort]];
    // Warmed by a short saturation first: without it the first round would time V8 compiling the MISS path.
    for (const [, port] of servers) await wrk(port, '/miss/1', WARM_UP_SECONDS);
    // Then the machine quiet: what set-up and the saturation runs left running (a core's memory reducer, PostgreSQL's autovacuum) is no server's latency.
    console.log(`paced rounds: waited ${(await waitForQuiet()).toFixed(0)} s for the machine to be quiet (under 10% busy for 3 s, at most 60 s)`);
    const added: number[][] = servers.map(() => []);
    for (let round = 1; round <= ROUNDS; round++) {
      const direct = await pacedMiss(originPort);
      const results: PacedRun[] = new Array(servers.length);
      const order = servers.map((_, index) => index);
      if (round % 2 === 0) order.reverse();
      for (const index of order) results[index] = await pacedMiss(servers[index][1]);
      console.log(`MISS at a paced load (${PACED_CONNECTIONS} connections, ${PACED_PAUSE_MS} ms pauses), round ${round} of ${ROUNDS}:`);
      console.log(pacedLine('  origin directly', direct, direct));
      servers.forEach(([label], index) => {
        console.log(pacedLine(`  ${label}`, results[index], direct));
        added[index].push(results[index].p99Ms - direct.p99Ms);
      });
    }
    const medians = added.map(median);
    // Paired within each round, as the rounds interleave the servers.
    const edgeOverBare = median(added[3].map((edge, round) => edge - added[1][round]));
    console.log(`MISS p99 added at the paced load, medians of ${ROUNDS}: ${servers.map(([label], index) => `${label} ${medians[index].toFixed(2)} ms`).join(', ')}; edge - bare node:http proxy, median of the rounds' ${edgeOverBare.toFixed(2)} ms (target <= 1 ms)`);
  }
  async function missRssAndSwaps(): Promise<void> {
    const direct = await wrk(originPort, '/miss/1');
    console.log(line('origin directly', direct));
    const results = await rounds('MISS', '/miss/1', [missServers.nginx, missServers.bare, missServers.undici, missServers.edge]);
    const [nginxMiss, bareMiss, , edgeMiss] = results[results.length - 1];
    console.log(`MISS ratio (last round) edge/nginx: ${ratio(edgeMiss, nginxMiss)} (target >= 0.4); bare node:http/nginx ${ratio(bareMiss, nginxMiss)}; edge/bare node:http ${ratio(edgeMiss, bareMiss)}`);
    console.log(`MISS p99 added over the origin at saturation: edge ${(edgeMiss.p99Ms - direct.p99Ms).toFixed(2)} ms (target < 2 ms); nginx ${(nginxMiss.p99Ms - direct.p99Ms).toFixed(2)} ms; bare node:http ${(bareMiss.p99Ms - direct.p99Ms).toFixed(2)} ms`);
    await pacedRounds();

    const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
    let next = 1;
    await Promise.all(Array.from({ length: 32 }, async () => {
      while (next <= CACHED_OBJECTS) await get(edgePort, `/hit/object-${next++}`, agent);
    }));
    agent.destroy();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const workers = await childPids(edge.pid!, 'cdn.js');
    const rss = await Promise.all(workers.map(rssMb));
    console.log(`RSS with ${CACHED_OBJECTS.toLocaleString('en')} objects cached: ${rss.map((mb) => `${mb.toFixed(0)} MB`).join(', ')} per worker; primary ${(await rssMb(edge.pid!)).toFixed(0)} MB (target < 300 MB per worker)`);

    const swapSeconds = Math.ceil(SWAPS * 0.5) + 4;
    const underLoad = wrk(edgePort, '/hit/1', swapSeconds);
    let swapped = version;
    for (let n = 0; n < SWAPS; n++) {
      await fetch(`${core.base}/api/v1/domains/${tested.id}/headers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: `swap ${n}`, header_name: `x-swap-${n}`, value: 'on', match: { paths: [{ kind: 'prefix', value: '/nowhere/' }] } }) });
      swapped = await publish(core.base);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const swaps = await underLoad;
    console.log(`${SWAPS} snapshot swaps under load (v${version + 1}..v${swapped}, edge on v${await edgeVersion(edgePort)}): ${Math.round(swaps.rps).toLocaleString('en')} req/s, ${swaps.requests.toLocaleString('en')} requests, failed ${swaps.failed} (target 0)`);
  }
} finally {
  await cleanup();
  await dropTestDatabase(url);
  await stopSharedServer();
  await rm(dir, { recursive: true, force: true });
}

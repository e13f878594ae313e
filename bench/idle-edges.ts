// npm run bench:idle-edges — what a fleet of idle edges held open by the config long-poll costs the
// core (issue #25, item 4). `cdn core` runs in its own process with production defaults on a fresh
// database; BENCH_EDGES simulated edges (default 1,000; each its own edge id and connection, signed
// as a real edge signs) keep one `GET /api/v1/edge/config?if_version=V&wait=W` open each (W =
// BENCH_WAIT, default 30, the edge's default) and re-issue it as soon as it is answered, as the edge
// agent does. Prints the core's CPU (user + system, from /proc) per second of wall time over
// BENCH_SECONDS (default 60) with the fleet idle, the same without any edge, the core's resident
// memory, and then how long after one publish every held pull was answered with the new version.
// Target (issue #25): the idle fleet under 5% of one core.
import { readFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { signedHeaders } from '../src/shared/signing.js';
import { startCoreProcess } from './core-process.js';
import { createTestDatabase, dropTestDatabase, stopSharedServer } from '../test/support/database.js';

const EDGES = Number(process.env.BENCH_EDGES ?? 1000);
const WAIT = Number(process.env.BENCH_WAIT ?? 30);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const TOKEN = 'bench-idle-edges-api-token';
const EDGE_TOKEN = 'cdnedge_bench-idle-edges-0123456789abcdefghijklmno';
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

type Pulled = { status: number; version: number | null; at: number };

/** CPU seconds (user + system) the process has used so far. */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

async function residentMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/** The core's CPU per wall second over `seconds`, in percent of one core. */
async function cpuPercent(pid: number, seconds: number): Promise<number> {
  const before = await cpuSeconds(pid);
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  return ((await cpuSeconds(pid)) - before) / ((performance.now() - started) / 1000) * 100;
}

async function api(base: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** One simulated edge: a long-poll always open, re-issued with the version it was last answered. */
class IdleEdge {
  version: number;
  answers = 0;
  failures = 0;
  onAnswer: ((pulled: Pulled) => void) | undefined;
  private stopped = false;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });

  constructor(
    private readonly base: URL,
    private readonly edgeId: string,
    version: number,
  ) {
    this.version = version;
  }

  start(): void {
    const path = `/api/v1/edge/config?if_version=${this.version}&wait=${WAIT}`;
    const headers = { ...signedHeaders({ token: EDGE_TOKEN, edgeId: this.edgeId, method: 'GET', pathWithQuery: path }), 'accept-encoding': 'gzip' };
    const sent = request({ host: this.base.hostname, port: this.base.port, path, headers, agent: this.agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const pulled: Pulled = { status: response.statusCode!, version: null, at: performance.now() };
        const body = Buffer.concat(chunks);
        if (response.statusCode === 200) pulled.version = JSON.parse((response.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body).toString()).data.version;
        this.answered(pulled);
      });
    });
    sent.on('error', () => {
      this.failures++;
      if (!this.stopped) setTimeout(() => this.start(), 500);
    });
    sent.end();
  }

  stop(): void {
    this.stopped = true;
    this.agent.destroy();
  }

  private answered(pulled: Pulled): void {
    this.answers++;
    if (pulled.status !== 200) this.failures++;
    else if (pulled.version !== null) this.version = pulled.version;
    this.onAnswer?.(pulled);
    // Like the edge agent: at once after an answer, half a second after a refusal.
    if (!this.stopped) setTimeout(() => this.start(), pulled.status === 200 ? 0 : 500);
  }
}

const url = await createTestDatabase();
const core = await startCoreProcess(url, { CDN_ENV: 'production', CDN_API_TOKEN: TOKEN, CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN });
const pid = core.child.pid!;
const edges: IdleEdge[] = [];
try {
  const domain = (await api(core.base, 'POST', '/api/v1/domains', { domain: 'idle-edges.example' })).data;
  await api(core.base, 'POST', `/api/v1/domains/${domain.id}/activate`, { override: true });
  await api(core.base, 'POST', `/api/v1/domains/${domain.id}/origins`, { host: 'origin.idle-edges.example' });
  const version = (await api(core.base, 'POST', '/api/v1/config/snapshots/rebuild')).data.version as number;
  await new Promise((resolve) => setTimeout(resolve, 2000));

  const baseline = await cpuPercent(pid, SECONDS);
  console.log(`core without edges: ${baseline.toFixed(2)}% of one core over ${SECONDS} s, ${(await residentMiB(pid)).toFixed(0)} MiB resident`);

  const base = new URL(core.base);
  for (let n = 0; n < EDGES; n++) edges.push(new IdleEdge(base, `idle-edge-${n}`, version));
  const opening = performance.now();
  for (const edge of edges) edge.start();
  // Settle: every edge's first request has been authenticated and is held.
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const held = await cpuPercent(pid, SECONDS);
  const answers = edges.reduce((sum, edge) => sum + edge.answers, 0);
  const failures = edges.reduce((sum, edge) => sum + edge.failures, 0);
  console.log(`core with ${EDGES} idle edges held open (wait=${WAIT} s): ${held.toFixed(2)}% of one core over ${SECONDS} s (${(held - baseline).toFixed(2)} points above no edges), ${(await residentMiB(pid)).toFixed(0)} MiB resident; ${answers} answers (re-issues) and ${failures} failures since opening ${((performance.now() - opening) / 1000).toFixed(0)} s ago`);

  const pushed: number[] = [];
  const all = new Promise<void>((resolve) => {
    for (const edge of edges) {
      edge.onAnswer = (pulled) => {
        if (pulled.version !== null && pulled.version > version && pulled.status === 200) {
          edge.onAnswer = undefined;
          pushed.push(pulled.at);
          if (pushed.length === EDGES) resolve();
        }
      };
    }
  });
  await api(core.base, 'POST', `/api/v1/domains/${domain.id}/origins`, { host: 'origin-2.idle-edges.example', role: 'backup' });
  const publishing = performance.now();
  await api(core.base, 'POST', '/api/v1/config/snapshots/rebuild');
  const published = performance.now();
  await all;
  pushed.sort((a, b) => a - b);
  const after = (at: number) => `${(at - publishing).toFixed(0)} ms`;
  console.log(`one publish (the rebuild call took ${(published - publishing).toFixed(0)} ms): every held pull answered with the new version; from the call: first ${after(pushed[0])}, p50 ${after(pushed[Math.floor(EDGES / 2)])}, p95 ${after(pushed[Math.floor(EDGES * 0.95)])}, last ${after(pushed[EDGES - 1])}`);
} finally {
  const stopping = performance.now();
  await core.stop();
  console.log(`core stopped ${(performance.now() - stopping).toFixed(0)} ms after SIGTERM with ${edges.length} pulls held`);
  for (const edge of edges) edge.stop();
  await dropTestDatabase(url);
  await stopSharedServer();
}

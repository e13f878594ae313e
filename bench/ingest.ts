// npm run bench:ingest — against `cdn core` in its own process on a fresh database:
// sustained usage ingest with 500-event batches (4 in flight), then the signed
// not-modified config pull (GET /api/v1/edge/config?if_version=current, a fresh
// signature and nonce per request) driven by wrk (apt-get install wrk): fleets of 200
// and 1,000 edges each polling once a second (CDN_EDGE_CONFIG_REFRESH_SECONDS), after
// a warm-up, then the pull's throughput with 20 connections back to back.
// Targets (issue #5): over 20,000 events/s; pull p99 under 5 ms.
// Between the two, what one edge costs the core each second: the core's CPU (/proc) per request of
// each thing an edge sends on its own clock (a usage batch and an origin-health batch every
// CDN_EDGE_TELEMETRY_FLUSH_SECONDS, a heartbeat every CDN_EDGE_HEARTBEAT_SECONDS), as small as a
// busy edge's are once aggregated, sent one after another; medians of three rounds.
import { startCoreProcess } from './core-process.js';
import { cpuSeconds } from './edge-setup.js';
import { median } from './median.js';
import { pollWithWrk, requireWrk, type PollResult } from './wrk.js';
import { signedHeaders } from '../src/shared/signing.js';
import { createTestDatabase, dropTestDatabase, stopSharedServer } from '../test/support/database.js';

const TOKEN = 'cdnedge_bench-ingest-token-0123456789';
const BATCH = 500;
const BATCHES = 200;
const IN_FLIGHT = 4;
const FLEETS = [200, 1000];
/** Requests of each kind per round of the per-edge cost, after a warm-up of a fifth of that. */
const EDGE_COST_REQUESTS = 400;
/** The edge's defaults (CDN_EDGE_TELEMETRY_FLUSH_SECONDS, CDN_EDGE_HEARTBEAT_SECONDS). */
const FLUSH_SECONDS = 1;
const HEARTBEAT_SECONDS = 5;
const POLL_SECONDS = 15;

async function signed(base: string, method: string, path: string, body?: string) {
  const headers = signedHeaders({ token: TOKEN, edgeId: 'bench-edge', method, pathWithQuery: path, body: body ?? '' });
  const response = await fetch(`${base}${path}`, { method, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) }, body });
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
  return response.json() as Promise<any>;
}

/**
 * The core's CPU per request of what one edge sends each second, medians of three interleaved rounds,
 * and their sum per edge-second: a usage batch (two aggregated events, one per worker) and an
 * origin-health batch (two passive observations) per flush, a heartbeat per CDN_EDGE_HEARTBEAT_SECONDS.
 */
async function edgeCost(base: string, pid: number, originId: string): Promise<void> {
  let batch = 0;
  const now = () => Math.floor(Date.now() / 1000);
  const kinds: [string, number, () => Promise<unknown>][] = [
    ['usage batch', 1 / FLUSH_SECONDS, () => signed(base, 'POST', '/api/v1/collector/usage', JSON.stringify({ idempotency_key: `edge-cost-${batch++}`, events: [1, 2].map(() => ({ domain: 'www.ingest0.example', path: '/miss/1', status: 200, bytes: 3_000_000, count: 1500, cache_status: 'miss', timestamp: now(), client_country: null, client_ip: '127.0.0.1' })) }))],
    ['origin-health batch', 1 / FLUSH_SECONDS, () => signed(base, 'POST', '/api/v1/collector/origin-health', JSON.stringify({ observations: [1, 2].map(() => ({ origin_id: originId, source: 'passive', success: true, failure_kind: null, http_status: 200, latency_ms: 1, timestamp: now() })) }))],
    ['heartbeat', 1 / HEARTBEAT_SECONDS, () => signed(base, 'POST', '/api/v1/edge/heartbeat', JSON.stringify({ edge_id: 'bench-edge', hostname: 'bench-edge', version: '0.1.0', healthy: true, config_version: null, config_checksum: null, config_error: null, labels: [], version_counters: [] }))],
  ];
  const perRequest = new Map<string, number[]>(kinds.map(([kind]) => [kind, []]));
  for (let round = 0; round < 3; round++) {
    for (const [kind, , send] of round % 2 ? [...kinds].reverse() : kinds) {
      for (let n = 0; n < EDGE_COST_REQUESTS / 5; n++) await send();
      const before = await cpuSeconds([pid]);
      for (let n = 0; n < EDGE_COST_REQUESTS; n++) await send();
      perRequest.get(kind)!.push((((await cpuSeconds([pid])) - before) / EDGE_COST_REQUESTS) * 1000);
    }
  }
  let perSecond = 0;
  for (const [kind, rate] of kinds) {
    const cost = median(perRequest.get(kind)!);
    perSecond += cost * rate;
    console.log(`one edge's ${kind}: core CPU ${cost.toFixed(2)} ms a request (rounds ${perRequest.get(kind)!.map((value) => value.toFixed(2)).join(', ')})`);
  }
  console.log(`one edge costs the core ${perSecond.toFixed(2)} ms of CPU a second in shipments (${(1000 / perSecond).toFixed(0)} edges per core CPU)`);
}

const ms = (microseconds: number) => `${(microseconds / 1000).toFixed(2)} ms`;
const rate = (result: PollResult) => Math.round(result.requests / (result.duration_us / 1e6));
const latencies = (result: PollResult) => `p50 ${ms(result.p50)}, p99 ${ms(result.p99)}, p99.9 ${ms(result.p999)}, max ${ms(result.max)}, errors ${result.http_errors + result.socket_errors}`;

requireWrk();
const url = await createTestDatabase();
const { base, child, stop } = await startCoreProcess(url, { CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN });
try {
  const post = async (path: string, body: object) => (await (await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as { data: { id: string } };
  let originId = '';
  for (let i = 0; i < 10; i++) {
    const created = await post('/api/v1/domains', { domain: `ingest${i}.example` });
    await post(`/api/v1/domains/${created.data.id}/activate`, { override: true });
    if (i === 0) originId = (await post(`/api/v1/domains/${created.data.id}/origins`, { host: 'origin.ingest0.example' })).data.id;
  }
  const now = Math.floor(Date.now() / 1000);
  const batch = (n: number) =>
    JSON.stringify({
      idempotency_key: `bench-${n}`,
      events: Array.from({ length: BATCH }, (_, i) => ({ domain: `www.ingest${i % 10}.example`, path: `/p/${i % 50}`, status: i % 20 === 0 ? 404 : 200, bytes: 1000 + i, cache_status: i % 3 ? 'hit' : 'miss', timestamp: now - (i % 120), client_country: 'DE', client_ip: `198.51.100.${i % 250}` })),
    });
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < BATCHES) await signed(base, 'POST', '/api/v1/collector/usage', batch(next++));
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  console.log(`usage ingest: ${BATCHES * BATCH} events in ${BATCHES} batches of ${BATCH} in ${seconds.toFixed(2)} s = ${Math.round((BATCHES * BATCH) / seconds).toLocaleString('en')} events/s`);

  await edgeCost(base, child.pid!, originId);

  let version: number | null = null;
  for (let tries = 0; tries < 100 && version === null; tries++) {
    version = (await signed(base, 'GET', '/api/v1/edge/config')).data.version;
    if (version === null) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const path = `/api/v1/edge/config?if_version=${version}`;
  if (!(await signed(base, 'GET', path)).data.not_modified) throw new Error(`version ${version} is no longer current; the pull would not be a not-modified one`);
  const fleet = (edges: number, seconds: number) => pollWithWrk(base, { token: TOKEN, path, edges, pollMs: 1000, seconds, count: 2 * edges * seconds + edges });
  await fleet(1000, 3); // warm-up: JIT, the database pool and its prepared statements
  for (const edges of FLEETS) {
    const result = await fleet(edges, POLL_SECONDS);
    console.log(`not-modified config pull, ${edges.toLocaleString('en')} edges polling every second (${rate(result)} req/s for ${POLL_SECONDS} s): ${latencies(result)}`);
  }
  const saturated = await pollWithWrk(base, { token: TOKEN, path, edges: 20, pollMs: 0, seconds: 10, count: 100000 });
  console.log(`not-modified config pull at saturation (20 connections back to back): ${rate(saturated).toLocaleString('en')} req/s, ${latencies(saturated)}`);
} finally {
  await stop();
  await dropTestDatabase(url);
  await stopSharedServer();
}

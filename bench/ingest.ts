// npm run bench:ingest — against `cdn core` in its own process on a fresh database:
// sustained usage ingest with 500-event batches (4 in flight), then the latency of the
// not-modified config pull (signed GET /api/v1/edge/config?if_version=current): at a steady
// fleet-like rate (open loop, 200 req/s, 10 s), then at saturation (autocannon, 20
// connections, 10 s). Targets (issue #5): over 20,000 events/s; pull p99 under 5 ms.
import { startCoreProcess } from './core-process.js';
import autocannon from 'autocannon';
import { openLoop } from './open-loop.js';
import { signedHeaders } from '../src/shared/signing.js';
import { createTestDatabase, dropTestDatabase, stopSharedServer } from '../test/support/database.js';

const TOKEN = 'cdnedge_bench-ingest-token-0123456789';
const BATCH = 500;
const BATCHES = 200;
const IN_FLIGHT = 4;
const POLL_RATE = 200;

async function signed(base: string, method: string, path: string, body?: string) {
  const headers = signedHeaders({ token: TOKEN, edgeId: 'bench-edge', method, pathWithQuery: path, body: body ?? '' });
  const response = await fetch(`${base}${path}`, { method, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) }, body });
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
  return response.json() as Promise<any>;
}

const url = await createTestDatabase();
// Debug level logs every request with the time the core spent on it (ms), which the pull report uses.
const served: number[] = [];
const { base, stop } = await startCoreProcess(url, { CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN, CDN_LOG_LEVEL: 'debug' }, (entry) => {
  if (entry.msg === 'request completed' && entry.path === '/api/v1/edge/config') served.push(entry.ms as number);
});
try {
  for (let i = 0; i < 10; i++) {
    const created = await (await fetch(`${base}/api/v1/domains`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ domain: `ingest${i}.example` }) })).json();
    await fetch(`${base}/api/v1/domains/${created.data.id}/activate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"override":true}' });
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

  let version: number | null = null;
  for (let tries = 0; tries < 100 && version === null; tries++) {
    version = (await signed(base, 'GET', '/api/v1/edge/config')).data.version;
    if (version === null) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const path = `/api/v1/edge/config?if_version=${version}`;
  const pull = () => ({ method: 'GET' as const, path, headers: signedHeaders({ token: TOKEN, edgeId: 'bench-edge', method: 'GET', pathWithQuery: path }) });
  served.length = 0;
  const polling = await openLoop(base, { rate: POLL_RATE, seconds: 10, request: pull });
  console.log(`not-modified config pull at ${POLL_RATE} req/s (open loop, ${POLL_RATE * 5} edges polling every 5 s): p50 ${polling.p50.toFixed(2)} ms, p99 ${polling.p99.toFixed(2)} ms, max ${polling.max.toFixed(1)} ms, failed ${polling.failed}`);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const inCore = served.sort((a, b) => a - b);
  const at = (p: number) => inCore[Math.min(inCore.length - 1, Math.floor((p / 100) * inCore.length))];
  console.log(`  of which inside the core (request log, ${inCore.length} pulls): p50 ${at(50)} ms, p99 ${at(99)} ms, max ${inCore[inCore.length - 1]} ms`);
  const result = await autocannon({ url: base, connections: 20, duration: 10, requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, ...pull() }) }] });
  console.log(`not-modified config pull at saturation (20 connections): ${result.requests.average.toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}`);
} finally {
  await stop();
  await dropTestDatabase(url);
  await stopSharedServer();
}

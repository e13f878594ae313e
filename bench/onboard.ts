// npm run bench:onboard — onboarding at scale through the API: `cdn core` in its own process with
// production defaults (CDN_ENV=production) on a fresh database creates BENCH_ONBOARD_DOMAINS domains
// (default 10,000), each with 10 items (8 DNS records and 2 origins, see below) and activated with
// `override`, through POST /api/v1/batch: BENCH_ONBOARD_BATCH domains per batch (default 50, so 600
// operations), BENCH_ONBOARD_PARALLEL batches in flight (default 4). Prints the elapsed seconds and
// what the background publisher then made of the result (a version and its size, or its error).
// CDN_EDGE_CONFIG_MAX_BYTES in the environment overrides the production limit (32 MiB).
// The delegation lookups of the activations ask a loopback resolver that answers every NS query
// with no records, so they cost what a fast resolver costs. Target (issue #25): under 60 s for 10,000.
import pg from 'pg';
import { startCoreProcess } from './core-process.js';
import { startLoopbackDns } from './loopback-dns.js';
import { createTestDatabase, dropTestDatabase, stopSharedServer } from '../test/support/database.js';

const DOMAINS = Number(process.env.BENCH_ONBOARD_DOMAINS ?? 10_000);
const PER_BATCH = Number(process.env.BENCH_ONBOARD_BATCH ?? 50);
const PARALLEL = Number(process.env.BENCH_ONBOARD_PARALLEL ?? 4);
const PUBLISH_TIMEOUT_MS = 300_000;
const TOKEN = 'bench-onboard-token';

type Operation = { ref?: string; method: string; path: string; body?: Record<string, unknown> };

// The 10 items of a domain, what a small site needs in front of the CDN: the apex and www proxied to
// the edge, 6 other records (api and static proxied, mail and verification records not), and a
// primary and a backup origin. The records' run and the origins' run each go in as one multi-row insert.
function domainOperations(n: number): Operation[] {
  const apex = `onboard-${n}.example`;
  const domain = `/api/v1/domains/@{d${n}}`;
  const records = [
    { type: 'A', name: '@', content: '192.0.2.10', proxied: true },
    { type: 'CNAME', name: 'www', content: apex, proxied: true },
    { type: 'A', name: 'api', content: '192.0.2.11', proxied: true },
    { type: 'A', name: 'static', content: '192.0.2.12', proxied: true },
    { type: 'AAAA', name: 'v6', content: '2001:db8::10', proxied: false },
    { type: 'MX', name: '@', content: `10 mail.${apex}` },
    { type: 'A', name: 'mail', content: '192.0.2.25', proxied: false },
    { type: 'TXT', name: '@', content: `v=spf1 mx -all` },
  ];
  return [
    { ref: `d${n}`, method: 'POST', path: '/api/v1/domains', body: { domain: apex } },
    ...records.map((body) => ({ method: 'POST', path: `${domain}/dns/records`, body })),
    { method: 'POST', path: `${domain}/origins`, body: { host: `origin-a.${apex}` } },
    { method: 'POST', path: `${domain}/origins`, body: { host: `origin-b.${apex}`, role: 'backup' } },
    { method: 'POST', path: `${domain}/activate`, body: { override: true } },
  ];
}

async function sendBatch(base: string, first: number, count: number): Promise<void> {
  const operations = Array.from({ length: count }, (_, i) => domainOperations(first + i)).flat();
  const response = await fetch(`${base}/api/v1/batch`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ operations }) });
  if (response.status !== 200) throw new Error(`batch of domains ${first}..${first + count - 1} answered ${response.status}: ${(await response.text()).slice(0, 500)}`);
  await response.arrayBuffer();
}

// Batches are taken in order by PARALLEL workers, so PARALLEL requests are in flight until the end.
async function onboard(base: string): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < DOMAINS) {
      const first = next;
      next += PER_BATCH;
      await sendBatch(base, first, Math.min(PER_BATCH, DOMAINS - first));
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
}

type PublishOutcome = { published: boolean; version: number | null; detail: string };

// Waits until the publisher has published every change, or has failed once after them.
async function publishOutcome(pool: pg.Pool, since: Date): Promise<PublishOutcome> {
  const deadline = Date.now() + PUBLISH_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const { rows } = await pool.query(`SELECT change_seq, published_seq, active_version, last_error, last_error_at, publish_failures FROM publish_state WHERE id = 1`);
    const state = rows[0];
    if (state && BigInt(state.change_seq) <= BigInt(state.published_seq) && state.active_version !== null) {
      const snapshot = (await pool.query(`SELECT size_bytes, domain_count FROM config_snapshots WHERE version = $1`, [state.active_version])).rows[0];
      const mib = (bytes: number) => `${(bytes / 1048576).toFixed(2)} MiB`;
      return { published: true, version: state.active_version, detail: `version ${state.active_version}: ${snapshot.domain_count} domains, ${mib(snapshot.size_bytes)}` };
    }
    if (state?.last_error && state.last_error_at >= since) return { published: false, version: state.active_version, detail: `${state.last_error} (${state.publish_failures} failed builds in a row)` };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { published: false, version: null, detail: `no outcome within ${PUBLISH_TIMEOUT_MS / 1000} s` };
}

const url = await createTestDatabase();
const dns = await startLoopbackDns();
const core = await startCoreProcess(url, { CDN_ENV: 'production', CDN_API_TOKEN: TOKEN, CDN_NAMESERVER_RESOLVERS: dns.address });
const pool = new pg.Pool({ connectionString: url, max: 2 });
try {
  console.log(`onboarding ${DOMAINS} domains × (8 records + 2 origins) with activation, ${PER_BATCH} domains per batch, ${PARALLEL} batches in parallel`);
  const started = performance.now();
  await onboard(core.base);
  const onboarded = performance.now();
  const ended = new Date();
  const { rows } = await pool.query(`SELECT (SELECT count(*) FROM domains WHERE status = 'active')::int AS active, (SELECT count(*) FROM dns_records)::int AS records, (SELECT count(*) FROM origins)::int AS origins`);
  console.log(`created and activated in ${((onboarded - started) / 1000).toFixed(1)} s: ${rows[0].active} active domains, ${rows[0].records} records, ${rows[0].origins} origins`);
  const outcome = await publishOutcome(pool, ended);
  console.log(`snapshot ${outcome.published ? 'published' : 'not published'} ${((performance.now() - onboarded) / 1000).toFixed(1)} s after the last batch: ${outcome.detail}`);
} finally {
  await pool.end();
  await core.stop();
  dns.stop();
  await dropTestDatabase(url);
  await stopSharedServer();
}

// npm run bench:api — loads 1,000 domains with 5 DNS records each into a fresh database, starts
// `cdn core` as a separate process, then drives two read endpoints with autocannon
// (50 connections, 10 s each) and prints requests/s and p50/p99 latency.
import { startCoreProcess } from './core-process.js';
import autocannon from 'autocannon';
import pg from 'pg';
import { migrate } from '../src/db/migrator.js';
import { createTestDatabase, dropTestDatabase, stopSharedServer } from '../test/support/database.js';

const DOMAINS = 1000;
const RECORDS_PER_DOMAIN = 5;
const CONNECTIONS = 50;
const DURATION_SECONDS = 10;
const TOKEN = 'bench-api-token';

async function loadData(url: string): Promise<string[]> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  await migrate(pool);
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO domains (domain, name, zone_name, updated_at)
     SELECT 'bench' || n || '.example', 'bench' || n || '.example', 'bench' || n || '.example', now()
     FROM generate_series(1, $1) AS n RETURNING id`,
    [DOMAINS],
  );
  await pool.query(
    `INSERT INTO domain_nameservers (domain_id, kind, hostname)
     SELECT id, 'expected', ns FROM domains, unnest(ARRAY['ns1.cdn.localhost', 'ns2.cdn.localhost']) AS ns`,
  );
  await pool.query(
    `INSERT INTO dns_records (domain_id, type, name, content, content_digest, updated_at)
     SELECT d.id, 'A', 'host' || r, '192.0.2.' || r, encode(sha256(convert_to('192.0.2.' || r, 'UTF8')), 'hex'), now() FROM domains d, generate_series(1, $1) AS r`,
    [RECORDS_PER_DOMAIN],
  );
  await pool.end();
  return rows.map((row) => row.id);
}

async function drive(title: string, base: string, paths: () => string): Promise<autocannon.Result> {
  const result = await autocannon({
    url: base,
    connections: CONNECTIONS,
    duration: DURATION_SECONDS,
    headers: { authorization: `Bearer ${TOKEN}` },
    requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: paths() }) }],
  });
  const errors = result.non2xx + result.errors;
  console.log(
    `${title.padEnd(44)} ${result.requests.average.toFixed(0).padStart(6)} req/s   p50 ${String(result.latency.p50).padStart(4)} ms   p99 ${String(result.latency.p99).padStart(4)} ms   non-2xx/errors ${errors}`,
  );
  return result;
}

async function main(): Promise<void> {
  const url = await createTestDatabase();
  const started = Date.now();
  const ids = await loadData(url);
  console.log(`loaded ${DOMAINS} domains x ${RECORDS_PER_DOMAIN} records in ${Date.now() - started} ms`);
  const { base, stop } = await startCoreProcess(url, { CDN_API_TOKEN: TOKEN, CDN_AUTO_MIGRATE: 'false' });
  try {
    await drive('warm-up', base, () => '/api/v1/domains?limit=100');
    await drive('GET /api/v1/domains?limit=100', base, () => `/api/v1/domains?limit=100&offset=${100 * Math.floor(Math.random() * 10)}`);
    await drive('GET /api/v1/domains/{id}/dns/records', base, () => `/api/v1/domains/${ids[Math.floor(Math.random() * ids.length)]}/dns/records`);
  } finally {
    await stop();
    await dropTestDatabase(url);
    await stopSharedServer();
  }
}

await main();

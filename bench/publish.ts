// npm run bench:publish — builds and stores a config snapshot for 1,000 and 10,000 active domains
// (5 records, 2 origins, 3 rules each) on a fresh database; prints build time and size.
// Targets (issue #5): under 300 ms for 1,000 domains and under 3 s for 10,000.
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../src/config/load.js';
import { openDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrator.js';
import { publishOnce } from '../src/publish/publisher.js';
import { buildSnapshot } from '../src/publish/snapshot-builder.js';
import { createTestDatabase, dropTestDatabase, stopSharedServer } from '../test/support/database.js';

const DEFAULTS = {
  cache: { caching_enabled: true, default_edge_ttl_seconds: 3600, browser_ttl_seconds: 14400, respect_origin_cache_control: true, query_string_mode: 'include', stale_while_revalidate_seconds: 0, stale_if_error_seconds: 0, development_mode: false, targeted_cache_control_header: null, strict_rfc9111: false },
  ssl: { mode: 'full', automatic: true, always_https: false, min_tls_version: '1.2', hsts_enabled: false, hsts_max_age: 31536000 },
};

async function load(url: string, count: number): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  await migrate(pool);
  await pool.query(
    `INSERT INTO domains (domain, name, zone_name, status, updated_at)
     SELECT 'pub' || n || '.example', 'pub' || n || '.example', 'pub' || n || '.example', 'active', now() FROM generate_series(1, $1) n`,
    [count],
  );
  await pool.query(`INSERT INTO dns_records (domain_id, type, name, content, content_digest, proxied, updated_at) SELECT d.id, 'A', 'host' || r, '192.0.2.' || r, encode(sha256(convert_to('192.0.2.' || r, 'UTF8')), 'hex'), true, now() FROM domains d, generate_series(1, 5) r`);
  await pool.query(`INSERT INTO origins (domain_id, host, port, role, updated_at) SELECT d.id, 'o' || r || '.' || d.domain, 443, CASE WHEN r = 1 THEN 'primary'::"OriginRole" ELSE 'backup'::"OriginRole" END, now() FROM domains d, generate_series(1, 2) r`);
  await pool.query(`INSERT INTO redirect_rules (domain_id, name, target, match, updated_at) SELECT d.id, 'r' || r, '/new/' || r, jsonb_build_object('paths', jsonb_build_array(jsonb_build_object('kind', 'exact', 'value', '/old/' || r))), now() FROM domains d, generate_series(1, 3) r`);
  await pool.end();
}

for (const count of [1000, 10000]) {
  const url = await createTestDatabase();
  try {
    await load(url, count);
    const database = openDatabase(url, pino({ level: 'silent' }));
    const config = loadConfig({ DATABASE_URL: url, CDN_EDGE_CONFIG_MAX_BYTES: String(512 * 1024 * 1024) });
    // A running core has used Prisma before it publishes; its one-off engine start is not build time.
    await database.prisma.$queryRaw`SELECT 1`;
    for (const round of [1, 2]) {
      const started = performance.now();
      const built = await buildSnapshot(database.prisma, database.pool, config, DEFAULTS);
      const ms = performance.now() - started;
      console.log(`${String(count).padStart(6)} domains, build run ${round}: ${ms.toFixed(0)} ms, ${(built.size / 1024 / 1024).toFixed(2)} MiB`);
    }
    const started = performance.now();
    const result = await publishOnce(database.prisma, database.pool, config, DEFAULTS, { force: true });
    console.log(`${String(count).padStart(6)} domains, build + store (publishOnce): ${(performance.now() - started).toFixed(0)} ms → ${result.outcome} v${result.version}`);
    await database.close();
  } finally {
    await dropTestDatabase(url);
  }
}
await stopSharedServer();

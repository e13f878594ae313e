import { expect } from 'chai';
import pino from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { openDatabase, type Database } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrator.js';
import { DomainPieceCache } from '../../src/publish/domain-pieces.js';
import { buildSnapshot } from '../../src/publish/snapshot-builder.js';
import { createTestDatabase, dropTestDatabase } from '../support/database.js';
import { layoutBytes } from '../../src/publish/snapshot-layout.js';

const DEFAULTS = {
  cache: { caching_enabled: true, default_edge_ttl_seconds: 3600, browser_ttl_seconds: 14400, respect_origin_cache_control: true, query_string_mode: 'include', stale_while_revalidate_seconds: 0, stale_if_error_seconds: 0, development_mode: false, targeted_cache_control_header: null, strict_rfc9111: false },
  ssl: { mode: 'full', automatic: true, always_https: false, min_tls_version: '1.2', hsts_enabled: false, hsts_max_age: 31536000 },
};

describe('snapshot builds reuse the pieces of unchanged domains', () => {
  let url: string;
  let database: Database;
  const build = (pieces: DomainPieceCache, env: Record<string, string> = {}) => buildSnapshot(database.prisma, database.pool, loadConfig({ DATABASE_URL: url, ...env }), DEFAULTS, pieces);
  before(async () => {
    url = await createTestDatabase();
    database = openDatabase(url, pino({ level: 'silent' }));
    await migrate(database.pool);
    await database.pool.query(`INSERT INTO domains (domain, name, zone_name, status, updated_at) SELECT 'piece-' || n || '.example', 'p', 'piece-' || n || '.example', 'active', now() FROM generate_series(1, 50) n`);
    await database.pool.query(`INSERT INTO dns_records (domain_id, type, name, content, content_digest, proxied, updated_at) SELECT id, 'A', '@', '192.0.2.1', 'apex', true, now() FROM domains`);
    await database.pool.query(`INSERT INTO origins (domain_id, host, port, role, updated_at) SELECT id, 'origin.' || domain, 443, 'primary', now() FROM domains`);
  });
  after(async () => {
    await database.close();
    await dropTestDatabase(url);
  });

  it('serializes every domain once, then only the domain a record changed, with the bytes a fresh build makes', async () => {
    const pieces = new DomainPieceCache();
    expect((await build(pieces)).domainsSerialized).to.equal(50);
    expect((await build(pieces)).domainsSerialized).to.equal(0);
    await database.pool.query(`INSERT INTO dns_records (domain_id, type, name, content, content_digest, proxied, updated_at) SELECT id, 'A', 'www', '192.0.2.2', 'www', true, now() FROM domains WHERE domain = 'piece-7.example'`);
    const changed = await build(pieces);
    expect(changed.domainsSerialized).to.equal(1);
    expect(layoutBytes(changed.layout).toString()).to.include('"www.piece-7.example"');
    const fresh = await build(new DomainPieceCache());
    expect(changed.checksum).to.equal(fresh.checksum);
    expect(layoutBytes(changed.layout).equals(Buffer.from(JSON.stringify(JSON.parse(layoutBytes(fresh.layout).toString()))))).to.equal(true);
  });

  it('serializes again a domain whose origin health flipped, and drops a deactivated domain', async () => {
    const pieces = new DomainPieceCache();
    await build(pieces);
    await database.pool.query(`UPDATE origins SET health_status = 'unhealthy' WHERE host = 'origin.piece-9.example'`);
    await database.pool.query(`UPDATE domains SET status = 'disabled' WHERE domain = 'piece-10.example'`);
    const changed = await build(pieces);
    expect(changed.domainsSerialized).to.equal(1);
    expect(changed.domainCount).to.equal(49);
    expect(changed.checksum).to.equal((await build(new DomainPieceCache())).checksum);
  });

  it('serializes every domain again when a setting the pieces depend on changes', async () => {
    const pieces = new DomainPieceCache();
    await build(pieces);
    expect((await build(pieces, { CDN_EDGE_CHALLENGE_DIFFICULTY: '5' })).domainsSerialized).to.equal(49);
  });
});

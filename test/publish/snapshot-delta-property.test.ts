import { createHash } from 'node:crypto';
import { expect } from 'chai';
import pino from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { openDatabase, type Database } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrator.js';
import { DomainPieceCache } from '../../src/publish/domain-pieces.js';
import { inTransaction } from '../../src/db/transaction.js';
import { buildSnapshot, type BuiltSnapshot } from '../../src/publish/snapshot-builder.js';
import { layoutBytes, layoutParts } from '../../src/publish/snapshot-layout.js';
import { deleteUnusedPieces, readDeltaBase, readSnapshotBytes, readStoredLayout, storeVersion } from '../../src/publish/snapshot-store.js';
import { applyDelta, snapshotChunks, snapshotParts, writeDelta } from '../../src/shared/snapshot-delta.js';
import { createTestDatabase, dropTestDatabase } from '../support/database.js';

const DEFAULTS = {
  cache: { caching_enabled: true, default_edge_ttl_seconds: 3600, browser_ttl_seconds: 14400, respect_origin_cache_control: true, query_string_mode: 'include', stale_while_revalidate_seconds: 0, stale_if_error_seconds: 0, development_mode: false, targeted_cache_control_header: null, strict_rfc9111: false },
  ssl: { mode: 'full', automatic: true, always_https: false, min_tls_version: '1.2', hsts_enabled: false, hsts_max_age: 31536000 },
};
const SEQUENCES = 200;

// A seeded generator (mulberry32), so a failure names the sequence that reproduces it.
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Change = (database: Database, pick: () => number, step: string) => Promise<unknown>;

const someDomain = `(SELECT id FROM domains WHERE status = 'active' ORDER BY md5(id || $1) LIMIT 1)`;
// Every kind of change an edge sees: domains added and removed, records, origin health flips, purges, platform settings.
const CHANGES: Record<string, Change> = {
  'add a domain': (database, _pick, step) => addDomains(database, `added-${step}`, 1),
  'deactivate a domain': (database, _pick, step) => database.pool.query(`UPDATE domains SET status = 'disabled' WHERE id = ${someDomain}`, [step]),
  'add a proxied record': (database, _pick, step) =>
    database.pool.query(`INSERT INTO dns_records (domain_id, type, name, content, content_digest, proxied, updated_at) SELECT ${someDomain}, 'A', 'r-' || $1, '192.0.2.7', 'd-' || $1, true, now()`, [step]),
  'rename a record': (database, _pick, step) => database.pool.query(`UPDATE dns_records SET name = 'n-' || $1 WHERE id = (SELECT id FROM dns_records ORDER BY md5(id || $1) LIMIT 1)`, [step]),
  'flip an origin health': (database, pick, step) =>
    database.pool.query(`UPDATE origins SET health_status = $2 WHERE id = (SELECT id FROM origins ORDER BY md5(id || $1) LIMIT 1)`, [step, ['healthy', 'unhealthy', 'unknown'][Math.floor(pick() * 3)]]),
  'queue a purge': (database, _pick, step) => database.pool.query(`INSERT INTO purge_requests (domain_id, scope, value, updated_at) SELECT ${someDomain}, 'prefix', '/p/' || $1, now()`, [step]),
  'complete a purge': (database, _pick, step) => database.pool.query(`UPDATE purge_requests SET status = 'completed' WHERE id = (SELECT id FROM purge_requests WHERE status = 'queued' ORDER BY md5(id || $1) LIMIT 1)`, [step]),
  'change an edge setting': (database, pick) =>
    database.pool.query(`INSERT INTO settings ("group", key, value, updated_at) VALUES ('edge', 'stale_config_warning_seconds', $1::jsonb, now()) ON CONFLICT ("group", key) DO UPDATE SET value = excluded.value`, [String(60 + Math.floor(pick() * 600))]),
};

async function addDomains(database: Database, prefix: string, count: number): Promise<void> {
  await database.pool.query(`INSERT INTO domains (domain, name, zone_name, status, updated_at) SELECT $1 || '-' || n || '.example', $1, $1 || '-' || n || '.example', 'active', now() FROM generate_series(1, $2) n`, [prefix, count]);
  await database.pool.query(`INSERT INTO dns_records (domain_id, type, name, content, content_digest, proxied, updated_at) SELECT id, 'A', '@', '192.0.2.1', 'apex', true, now() FROM domains WHERE name = $1`, [prefix]);
  await database.pool.query(`INSERT INTO origins (domain_id, host, port, role, updated_at) SELECT id, 'origin.' || domain, 443, 'primary', now() FROM domains WHERE name = $1`, [prefix]);
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('snapshot deltas reproduce the full snapshot (property test)', function () {
  this.timeout(120_000);
  let url: string;
  let database: Database;
  const config = () => loadConfig({ DATABASE_URL: url });
  before(async () => {
    url = await createTestDatabase();
    database = openDatabase(url, pino({ level: 'silent' }));
    await migrate(database.pool);
    await addDomains(database, 'seed', 20);
  });
  after(async () => {
    await database.close();
    await dropTestDatabase(url);
  });

  // Stored as the publisher stores versions (by pieces); every tenth version the ones older than the last four go, with the pieces no version names.
  const store = async (version: number, built: BuiltSnapshot) => {
    const row = { version, checksum: built.checksum, size: built.size, layout: built.layout, source: 'publish', domainCount: built.domainCount, publishedSeq: 0n };
    await inTransaction(database.pool, (client) => storeVersion(client, row, version > 1 ? version - 1 : null));
    if (version % 10) return;
    await database.pool.query('DELETE FROM config_snapshots WHERE version <= $1', [version - 4]);
    await deleteUnusedPieces(database.pool);
  };

  it(`over ${SEQUENCES} random change sequences, V plus its delta has the checksum of the full V+n, also between versions stored by pieces, and reused pieces build what a fresh build does`, async () => {
    const pieces = new DomainPieceCache();
    const build = (cache: DomainPieceCache) => buildSnapshot(database.prisma, database.pool, config(), DEFAULTS, cache);
    const kinds = Object.keys(CHANGES);
    // Deltas start from one of the last three versions: V+n for n from 1 to 3. history[i] is version i + 1.
    const history: BuiltSnapshot[] = [await build(pieces)];
    await store(1, history[0]);
    for (let sequence = 0; sequence < SEQUENCES; sequence++) {
      const pick = random(sequence + 1);
      const applied: string[] = [];
      for (let change = 0; change < 1 + Math.floor(pick() * 4); change++) {
        const kind = kinds[Math.floor(pick() * kinds.length)];
        applied.push(kind);
        await CHANGES[kind](database, pick, `${sequence}-${change}`);
      }
      const to = await build(pieces);
      const label = `sequence ${sequence + 1} (${applied.join(', ')})`;
      expect(to.checksum, `${label}: a build with reused pieces`).to.equal((await build(new DomainPieceCache())).checksum);
      expect(sha256(layoutBytes(to.layout)), `${label}: the checksum hashed piece by piece`).to.equal(to.checksum);
      const back = 1 + Math.floor(pick() * Math.min(3, history.length));
      const from = history[history.length - back];
      const fromVersion = history.length - back + 1;
      const fromBytes = layoutBytes(from.layout);
      const delta = writeDelta(snapshotParts(fromBytes), layoutParts(to.layout), fromVersion, from.checksum);
      expect(delta, label).to.not.equal(undefined);
      expect(sha256(Buffer.concat(snapshotChunks(applyDelta(snapshotParts(fromBytes, false), delta!).parts))), `${label}, from ${back} back`).to.equal(to.checksum);
      history.push(to);
      await store(history.length, to);
      const [base, stored] = await Promise.all([readDeltaBase(database.prisma, fromVersion), readStoredLayout(database.prisma, history.length)]);
      const storedDelta = writeDelta(base!.base, layoutParts(stored!.layout), fromVersion, base!.checksum);
      expect(storedDelta?.equals(delta!), `${label}: the delta between stored versions`).to.equal(true);
      expect(sha256((await readSnapshotBytes(database.prisma, history.length))!), `${label}: the stored version read back`).to.equal(to.checksum);
    }
  });
});

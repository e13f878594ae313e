import { expect } from 'chai';
import pino from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { openDatabase, type Database } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrator.js';
import { transaction } from '../../src/db/sql.js';
import { ActiveVersion } from '../../src/publish/active-version.js';
import { markConfigDirty } from '../../src/publish/dirty.js';
import { startPublisher, type StoredVersion } from '../../src/publish/publisher.js';
import { layoutBytes } from '../../src/publish/snapshot-layout.js';
import { readSnapshotBytes } from '../../src/publish/snapshot-store.js';
import { createTestDatabase, dropTestDatabase } from '../support/database.js';
import { eventually } from '../support/eventually.js';

const DEFAULTS = {
  cache: { caching_enabled: true, default_edge_ttl_seconds: 3600, browser_ttl_seconds: 14400, respect_origin_cache_control: true, query_string_mode: 'include', stale_while_revalidate_seconds: 0, stale_if_error_seconds: 0, development_mode: false, targeted_cache_control_header: null, strict_rfc9111: false },
  ssl: { mode: 'full', automatic: true, always_https: false, min_tls_version: '1.2', hsts_enabled: false, hsts_max_age: 31536000 },
};
// A tick far longer than the test: only the wake-up can publish in time.
const SLOW_TICK = { tickMs: 60_000, quietMs: 100, maxWaitMs: 3000 };

describe('the publisher wakes at each commit that marks the config dirty', function () {
  this.timeout(30000);
  let url: string;
  let database: Database;
  let active: ActiveVersion;
  let stopPublisher: () => Promise<void>;
  const wakes: number[] = [];
  const stored: StoredVersion[] = [];
  const state = () => database.prisma.publishState.findUniqueOrThrow({ where: { id: 1 } });

  before(async () => {
    url = await createTestDatabase();
    database = openDatabase(url, pino({ level: 'silent' }), 3);
    await migrate(database.pool);
    active = new ActiveVersion(database.pool, url, pino({ level: 'silent' }));
    await active.start();
    active.onConfigChange(() => wakes.push(Date.now()));
    stopPublisher = startPublisher(database.prisma, database.pool, loadConfig({ DATABASE_URL: url }), DEFAULTS, pino({ level: 'silent' }), { timing: SLOW_TICK, onConfigChange: (listener) => active.onConfigChange(listener), onStored: (version) => stored.push(version) });
  });
  after(async () => {
    await stopPublisher();
    await active.stop();
    await database.close();
    await dropTestDatabase(url);
  });

  it('is told of a change once it commits, not before', async () => {
    const before = wakes.length;
    await transaction(database.prisma, async (tx) => {
      await markConfigDirty(tx, 'test: in a transaction');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(wakes.length, 'no wake-up before the commit').to.equal(before);
    });
    await eventually('a wake-up after the commit', async () => (wakes.length > before ? true : undefined), 5000);
  });

  it('publishes a change within a second of its commit, with its next tick a minute away', async () => {
    await eventually('the first changes published', async () => ((await state()).active_version !== null ? true : undefined), 5000);
    const published = (await state()).active_version!;
    const started = Date.now();
    await database.prisma.domain.create({ data: { domain: 'wake.example', name: 'wake.example', zone_name: 'wake.example', status: 'active' } });
    await markConfigDirty(database.prisma, 'test: a new domain');
    const version = await eventually('the change published', async () => {
      const now = await state();
      return now.active_version !== published && now.change_seq <= now.published_seq ? now.active_version : undefined;
    }, 5000);
    expect(version).to.equal(published + 1);
    expect(Date.now() - started).to.be.below(1000);
    // What the core serves without reading it back is what it stored.
    const row = await database.prisma.configSnapshot.findUniqueOrThrow({ where: { version: version! }, select: { checksum: true, created_at: true } });
    const told = stored.find((candidate) => candidate.version === version)!;
    expect(told).to.deep.include({ checksum: row.checksum, createdAt: row.created_at });
    expect(layoutBytes(told.layout).equals((await readSnapshotBytes(database.prisma, version!))!)).to.equal(true);
  });
});

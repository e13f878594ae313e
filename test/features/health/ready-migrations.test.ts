import { expect } from 'chai';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../../../src/config/load.js';
import { startCore, type RunningCore } from '../../../src/core/start.js';
import { migrate } from '../../../src/db/migrator.js';
import { createTestDatabase, dropTestDatabase } from '../../support/database.js';

async function ready(core: RunningCore): Promise<{ status: number; body: any }> {
  const response = await fetch(`${core.url}/ready`);
  return { status: response.status, body: await response.json() };
}

// A core started without CDN_AUTO_MIGRATE on a database that lacks a migration it ships must not
// take traffic: its code expects tables and columns that are not there yet.
describe('readiness with a pending migration', function () {
  this.timeout(60_000);
  let url: string;
  let pool: pg.Pool;
  let core: RunningCore | undefined;

  before(async () => {
    url = await createTestDatabase();
    pool = new pg.Pool({ connectionString: url, max: 2 });
    await migrate(pool);
  });
  after(async () => {
    await core?.stop();
    await pool.end();
    await dropTestDatabase(url);
  });

  it('answers 503 naming the migrations until they are applied, then 200', async () => {
    const { rows } = await pool.query('DELETE FROM "_prisma_migrations" WHERE migration_name = (SELECT max(migration_name) FROM "_prisma_migrations") RETURNING *');
    const newest = rows[0];
    core = await startCore(loadConfig({ DATABASE_URL: url, CDN_CORE_PORT: '0', CDN_AUTO_MIGRATE: 'false', CDN_PUBLISH_ENABLED: 'false', CDN_LOG_LEVEL: 'silent' }), pino({ level: 'silent' }));
    expect(await ready(core)).to.deep.equal({ status: 503, body: { status: 'fail', checks: { database: 'ok', migrations: 'fail' } } });
    const detail = await (await fetch(`${core.url}/api/v1/readiness`)).json();
    expect(detail.checks.migrations).to.equal(`fail: 1 pending (${newest.migration_name}); run \`cdn migrate\``);
    const health = await (await fetch(`${core.url}/cdn-health`)).json();
    expect(health.database).to.deep.equal({ ok: true });
    expect(health.checks).to.deep.equal({ database: 'ok', migrations: 'fail' });
    // What `cdn migrate` records once it has applied the migration (its tables are there already).
    await pool.query('INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count) VALUES ($1, $2, $3, $4, $5, 1)', [newest.id, newest.checksum, newest.migration_name, newest.started_at, newest.finished_at]);
    expect(await ready(core)).to.deep.equal({ status: 200, body: { status: 'ok', checks: { database: 'ok', migrations: 'ok' } } });
  });
});

import { expect } from 'chai';
import { TestCore } from '../../support/core.js';

// A core whose database lacks a migration it ships (started with CDN_AUTO_MIGRATE=false before
// `cdn migrate`, or a database restored from before it) must not take traffic: its code expects
// tables and columns that are not there yet.
describe('readiness with a pending migration', function () {
  this.timeout(60_000);
  let core: TestCore;

  before(async () => {
    core = await TestCore.start();
  });
  after(async () => {
    await core?.stop();
  });

  const ready = async () => {
    const response = await fetch(`${core.url}/ready`);
    return { status: response.status, body: await response.json() };
  };

  it('answers 503 naming the migrations until they are applied, then 200', async () => {
    const pool = core.core.connection.pool;
    // The record `cdn migrate` keeps of the newest migration goes: to the migrator, it is pending.
    const { rows } = await pool.query('DELETE FROM "_prisma_migrations" WHERE migration_name = (SELECT max(migration_name) FROM "_prisma_migrations") RETURNING *');
    const newest = rows[0];
    expect(await ready()).to.deep.equal({ status: 503, body: { status: 'fail', checks: { database: 'ok', migrations: 'fail' } } });
    const detail = await (await fetch(`${core.url}/api/v1/readiness`)).json();
    expect(detail.checks.migrations).to.equal(`fail: 1 pending (${newest.migration_name}); run \`cdn migrate\``);
    const health = await (await fetch(`${core.url}/cdn-health`)).json();
    expect(health.database).to.deep.equal({ ok: true });
    expect(health.checks).to.deep.equal({ database: 'ok', migrations: 'fail' });
    // What `cdn migrate` records once it has applied the migration (its tables are there already).
    await pool.query('INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count) VALUES ($1, $2, $3, $4, $5, 1)', [newest.id, newest.checksum, newest.migration_name, newest.started_at, newest.finished_at]);
    expect(await ready()).to.deep.equal({ status: 200, body: { status: 'ok', checks: { database: 'ok', migrations: 'ok' } } });
  });
});

import { expect } from 'chai';
import pg from 'pg';
import pino from 'pino';
import { migrate } from '../../src/db/migrator.js';
import { ActiveVersion, APPLICATION_NAME } from '../../src/publish/active-version.js';
import { createTestDatabase, dropTestDatabase, testPool } from '../support/database.js';
import { eventually } from '../support/eventually.js';

describe('active config version kept in memory (LISTEN/NOTIFY)', () => {
  let url: string;
  let pool: pg.Pool;
  let active: ActiveVersion;
  const setVersion = (version: number) => pool.query('UPDATE publish_state SET active_version = $1 WHERE id = 1', [version]);

  before(async () => {
    url = await createTestDatabase();
    pool = testPool({ connectionString: url, max: 3 });
    await migrate(pool);
    await pool.query('INSERT INTO publish_state (id, active_version, updated_at) VALUES (1, 4, now())');
    active = new ActiveVersion(pool, url, pino({ level: 'silent' }));
    await active.start();
  });
  after(async () => {
    await active.stop();
    await pool.end();
    await dropTestDatabase(url);
  });

  it('reads the current version on start and follows every committed change', async () => {
    expect(active.listening).to.equal(true);
    expect(await active.current()).to.equal(4);
    await setVersion(5);
    await eventually('version 5 announced', async () => ((await active.current()) === 5 ? true : undefined), 5000);
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('UPDATE publish_state SET active_version = 6 WHERE id = 1');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await active.current(), 'an uncommitted version is not served').to.equal(5);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    await eventually('version 6 announced', async () => ((await active.current()) === 6 ? true : undefined), 5000);
  });

  it('re-reads the version on its own connection, so a change that sent no notification is picked up', async () => {
    await pool.query('ALTER TABLE publish_state DISABLE TRIGGER publish_state_config_published');
    try {
      await setVersion(10);
      expect(await active.current()).to.not.equal(10);
      await eventually('the re-read', async () => ((await active.current()) === 10 ? true : undefined), 8000);
    } finally {
      await pool.query('ALTER TABLE publish_state ENABLE TRIGGER publish_state_config_published');
    }
  });

  it('reads the row while its connection is down, and listens again once it reconnects', async () => {
    await pool.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [APPLICATION_NAME]);
    await eventually('the listener noticed', async () => (active.listening ? undefined : true), 5000);
    await setVersion(11);
    expect(await active.current()).to.equal(11);
    await eventually('listening again', async () => (active.listening ? true : undefined), 10000);
    await setVersion(12);
    await eventually('version 12 announced', async () => ((await active.current()) === 12 ? true : undefined), 5000);
  });
});

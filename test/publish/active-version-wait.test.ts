import { expect } from 'chai';
import pg from 'pg';
import pino from 'pino';
import { migrate } from '../../src/db/migrator.js';
import { ActiveVersion, APPLICATION_NAME } from '../../src/publish/active-version.js';
import { createTestDatabase, dropTestDatabase, testPool } from '../support/database.js';
import { eventually } from '../support/eventually.js';

// What wakes a config long-poll: ActiveVersion.changeFrom against a real Postgres.
describe('waiting for a newer active config version', () => {
  let url: string;
  let pool: pg.Pool;
  let active: ActiveVersion;
  const setVersion = (version: number) => pool.query('UPDATE publish_state SET active_version = $1 WHERE id = 1', [version]);
  const timed = async <T>(promise: Promise<T>) => {
    const started = Date.now();
    const value = await promise;
    return { value, ms: Date.now() - started };
  };

  before(async () => {
    url = await createTestDatabase();
    pool = testPool({ connectionString: url, max: 3 });
    await migrate(pool);
    await pool.query('INSERT INTO publish_state (id, active_version, updated_at) VALUES (1, 1, now())');
    active = new ActiveVersion(pool, url, pino({ level: 'silent' }));
    await active.start();
  });
  after(async () => {
    await active.stop();
    await pool.end();
    await dropTestDatabase(url);
  });

  it('ends at once when the version already differs', async () => {
    expect(await timed(active.changeFrom(0, 5000))).to.have.property('value', 'changed');
  });

  it('ends with timeout when nothing changes', async () => {
    const { value, ms } = await timed(active.changeFrom(1, 300));
    expect(value).to.equal('timeout');
    expect(ms).to.be.within(290, 1000);
  });

  it('is woken by the notification of a committed change, well within 100 ms', async () => {
    const waiting = timed(active.changeFrom(1, 5000));
    const stored = Date.now();
    await setVersion(2);
    const committed = Date.now() - stored;
    const { value, ms } = await waiting;
    expect(value).to.equal('changed');
    expect(ms).to.be.below(committed + 100);
  });

  it('is woken by the re-read when the notification was missed', async () => {
    await pool.query('ALTER TABLE publish_state DISABLE TRIGGER publish_state_config_published');
    try {
      const waiting = active.changeFrom(2, 10000);
      await setVersion(3);
      expect(await waiting).to.equal('changed');
    } finally {
      await pool.query('ALTER TABLE publish_state ENABLE TRIGGER publish_state_config_published');
    }
  });

  it('a wait begun while the listener is down ends once it has reconnected and read a newer version', async () => {
    await pool.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [APPLICATION_NAME]);
    await eventually('the listener noticed', async () => (active.listening ? undefined : true), 5000);
    const waiting = active.changeFrom(3, 10000);
    await setVersion(4);
    expect(await waiting).to.equal('changed');
    expect(active.listening).to.equal(true);
  });

  it('ends waits with stopping when released, and every later wait at once', async () => {
    const other = new ActiveVersion(pool, url, pino({ level: 'silent' }));
    await other.start();
    try {
      const waiting = other.changeFrom(4, 10000);
      other.releaseWaiters();
      expect(await waiting).to.equal('stopping');
      expect(await timed(other.changeFrom(4, 10000))).to.have.property('value', 'stopping');
    } finally {
      await other.stop();
    }
  });
});

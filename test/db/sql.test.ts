import { expect } from 'chai';
import pino from 'pino';
import { openDatabase, type Database } from '../../src/db/client.js';
import { insertRows } from '../../src/db/insert-rows.js';
import { migrate } from '../../src/db/migrator.js';
import { sqlOf, transaction } from '../../src/db/sql.js';
import { createTestDatabase, dropTestDatabase } from '../support/database.js';

describe('SQL beside Prisma on the same connection', () => {
  let url: string;
  let database: Database;
  before(async () => {
    url = await createTestDatabase();
    database = openDatabase(url, pino({ level: 'silent' }));
    await migrate(database.pool);
  });
  after(async () => {
    await database.close();
    await dropTestDatabase(url);
  });
  beforeEach(async () => {
    await database.pool.query('DELETE FROM domains');
    await database.pool.query('DELETE FROM settings');
  });

  const backend = async (sql: ReturnType<typeof sqlOf>) => (await sql.query<{ pid: number; xid: string }>('SELECT pg_backend_pid() AS pid, txid_current()::text AS xid')).rows[0];

  it('runs sqlOf(tx) in the Prisma transaction itself: each sees the other’s writes', async () => {
    await transaction(database.prisma, async (tx) => {
      const viaPrisma = await tx.$queryRaw<{ pid: number; xid: string }[]>`SELECT pg_backend_pid() AS pid, txid_current()::text AS xid`;
      expect(await backend(sqlOf(tx))).to.deep.equal(viaPrisma[0]);
      await sqlOf(tx).query("INSERT INTO settings (\"group\", key, value) VALUES ('a', 'b', '1')");
      expect(await tx.setting.count()).to.equal(1);
      await tx.setting.create({ data: { group: 'a', key: 'c', value: 2 } });
      expect((await sqlOf(tx).query('SELECT count(*)::int AS n FROM settings')).rows[0].n).to.equal(2);
      expect(await database.prisma.setting.count(), 'nothing is visible outside before commit').to.equal(0);
    });
    expect(await database.prisma.setting.count()).to.equal(2);
  });

  it('rolls back what SQL and Prisma wrote when the work throws', async () => {
    const failed = transaction(database.prisma, async (tx) => {
      await sqlOf(tx).query("INSERT INTO settings (\"group\", key, value) VALUES ('a', 'b', '1')");
      await tx.setting.create({ data: { group: 'a', key: 'c', value: 2 } });
      throw new Error('refused');
    });
    expect(await failed.catch((error: Error) => error.message)).to.equal('refused');
    expect(await database.prisma.setting.count()).to.equal(0);
  });

  it('gives concurrent transactions their own connections, also while they queue for the pool (10)', async () => {
    const seen = await Promise.all(
      Array.from({ length: 25 }, () =>
        transaction(database.prisma, async (tx) => {
          const viaPrisma = (await tx.$queryRaw<{ pid: number; xid: string }[]>`SELECT pg_backend_pid() AS pid, txid_current()::text AS xid`)[0];
          await new Promise((resolve) => setTimeout(resolve, 20));
          const viaSql = await backend(sqlOf(tx));
          expect(viaSql).to.deep.equal(viaPrisma);
          return viaSql.xid;
        }),
      ),
    );
    expect(new Set(seen).size).to.equal(25);
  });

  it('refuses SQL through a transaction that timed out, and writes nothing', async () => {
    let late: unknown;
    const timedOut = transaction(
      database.prisma,
      async (tx) => {
        await new Promise((resolve) => setTimeout(resolve, 400));
        late = await sqlOf(tx)
          .query("INSERT INTO settings (\"group\", key, value) VALUES ('late', 'write', '1')")
          .catch((error: Error) => error);
      },
      { timeout: 100 },
    );
    expect(await timedOut.then(() => 'committed', () => 'rolled back')).to.equal('rolled back');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(late).to.be.instanceOf(Error);
    expect((late as Error).message).to.match(/transaction has ended/);
    expect(await database.prisma.setting.count()).to.equal(0);
  });

  it('refuses SQL as soon as Prisma has sent the ROLLBACK of a timed-out transaction, before its connection is released', async () => {
    let late: unknown;
    const timedOut = transaction(
      database.prisma,
      async (tx) => {
        // Keeps the connection busy past the timeout, so Prisma's ROLLBACK waits in its queue.
        const busy = sqlOf(tx).query('SELECT pg_sleep(0.6)').catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 300));
        late = await sqlOf(tx)
          .query("INSERT INTO settings (\"group\", key, value) VALUES ('queued', 'write', '1')")
          .catch((error: Error) => error);
        await busy;
      },
      { timeout: 100 },
    );
    expect(await timedOut.then(() => 'committed', () => 'rolled back')).to.equal('rolled back');
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(late).to.be.instanceOf(Error);
    expect(await database.prisma.setting.count(), 'nothing written outside the transaction').to.equal(0);
  });

  it('runs sqlOf(prisma) on the pool, and refuses a client it does not know', async () => {
    expect((await sqlOf(database.prisma).query('SELECT 1 AS one')).rows[0].one).to.equal(1);
    expect(() => sqlOf({} as never)).to.throw(/no SQL connection/);
  });

  describe('insertRows', () => {
    it('returns the stored rows in the order given, with column defaults for what a row leaves out', async () => {
      const [domain] = await insertRows(sqlOf(database.prisma), 'domains', [{ name: 'a.example', domain: 'a.example', zone_name: 'a.example' }]);
      expect(domain).to.include({ status: 'pending_nameserver', routing_mode: 'geo', activation_override: false, display_name: null });
      expect(domain.created_at).to.be.instanceOf(Date);
      const rules = await insertRows(sqlOf(database.prisma), 'waf_rules', [
        { domain_id: domain.id, name: 'first', signatures: ['sqli', 'xss'], match: { paths: [{ kind: 'prefix', value: '/a' }] } },
        { domain_id: domain.id, name: 'second', priority: 5, enabled: false },
        { domain_id: domain.id, name: 'third', signatures: [], match: {}, comment: undefined },
      ]);
      expect(rules.map((rule) => rule.name)).to.deep.equal(['first', 'second', 'third']);
      expect(rules[0]).to.include({ priority: 1000, enabled: true, action: 'block' });
      expect(rules[0].signatures).to.deep.equal(['sqli', 'xss']);
      expect(rules[0].match).to.deep.equal({ paths: [{ kind: 'prefix', value: '/a' }] });
      expect(rules[1]).to.include({ priority: 5, enabled: false });
      expect(rules[1].signatures, 'a left-out array column takes its default').to.deep.equal([]);
      expect(rules[1].match, 'a left-out jsonb column takes its default').to.deep.equal({});
      const stored = await database.prisma.wafRule.findMany({ where: { domain_id: String(domain.id) }, orderBy: { name: 'asc' } });
      expect(stored.map((rule) => rule.id)).to.deep.equal(rules.map((rule) => rule.id));
    });

    it('refuses a column name that is not a plain identifier', async () => {
      const refused = await insertRows(sqlOf(database.prisma), 'settings', [{ 'key"; DROP TABLE settings; --': 1 }]).catch((error: Error) => error.message);
      expect(refused).to.match(/not a column or table name/);
    });
  });
});

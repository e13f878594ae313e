import { createHash } from 'node:crypto';
import { cp, mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { MIGRATIONS_DIR, MigrationError, migrate, migrationStatus, readMigrations } from '../../src/db/migrator.js';
import { createTestDatabase, dropTestDatabase, testPool } from '../support/database.js';

describe('migrator', () => {
  let url: string;
  let pool: pg.Pool;
  let dir: string;

  beforeEach(async () => {
    url = await createTestDatabase();
    pool = testPool({ connectionString: url, max: 4 });
    dir = await mkdtemp(path.join(tmpdir(), 'cdn-migrations-'));
    await cp(MIGRATIONS_DIR, dir, { recursive: true });
  });
  afterEach(async () => {
    await pool.end();
    await dropTestDatabase(url);
    await rm(dir, { recursive: true, force: true });
  });

  it('applies every migration from an empty database and records it the way Prisma does', async () => {
    const files = await readMigrations(dir);
    expect(await migrate(pool, dir)).to.deep.equal(files.map((file) => file.name));
    const { rows } = await pool.query('SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name');
    expect(rows.map((row) => row.migration_name)).to.deep.equal(files.map((file) => file.name));
    const sql = await readFile(path.join(dir, files[0].name, 'migration.sql'), 'utf8');
    expect(rows[0].checksum).to.equal(createHash('sha256').update(sql).digest('hex'));
    expect(rows[0].finished_at).to.be.instanceOf(Date);
    const tables = await pool.query(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'`);
    expect(tables.rows[0].n).to.be.greaterThan(30);
  });

  it('applies nothing the second time', async () => {
    await migrate(pool, dir);
    expect(await migrate(pool, dir)).to.deep.equal([]);
  });

  it('lets only one of two concurrent migrators apply each migration', async () => {
    const other = testPool({ connectionString: url, max: 2 });
    try {
      const [first, second] = await Promise.all([migrate(pool, dir), migrate(other, dir)]);
      expect([...first, ...second]).to.deep.equal((await readMigrations(dir)).map((file) => file.name));
      const { rows } = await pool.query('SELECT count(*)::int AS n FROM "_prisma_migrations"');
      expect(rows[0].n).to.equal((await readMigrations(dir)).length);
    } finally {
      await other.end();
    }
  });

  it('applies a new migration in order and reports status', async () => {
    await migrate(pool, dir);
    await mkdir(path.join(dir, '29991231000000_later'));
    await writeFile(path.join(dir, '29991231000000_later', 'migration.sql'), 'CREATE TABLE "later_things" ("id" TEXT PRIMARY KEY);\n');
    const before = await migrationStatus(pool, dir);
    expect(before.at(-1)).to.deep.equal({ name: '29991231000000_later', state: 'pending' });
    expect(await migrate(pool, dir)).to.deep.equal(['29991231000000_later']);
    expect((await migrationStatus(pool, dir)).every((state) => state.state === 'applied')).to.equal(true);
  });

  it('refuses to continue when an applied migration file was modified', async () => {
    await migrate(pool, dir);
    const [first] = await readMigrations(dir);
    await writeFile(path.join(dir, first.name, 'migration.sql'), `${first.sql}\n-- edited\n`);
    const error = await migrate(pool, dir).catch((caught: Error) => caught);
    expect(error).to.be.instanceOf(MigrationError);
    expect((error as Error).message).to.match(/was modified after it was applied/);
    expect(await migrationStatus(pool, dir).catch((caught: Error) => caught)).to.be.instanceOf(MigrationError);
  });

  it('rolls back a failing migration completely and records nothing for it', async () => {
    await migrate(pool, dir);
    await mkdir(path.join(dir, '29991231000000_broken'));
    await writeFile(path.join(dir, '29991231000000_broken', 'migration.sql'), 'CREATE TABLE "half_done" ("id" TEXT);\nSELECT no_such_function();\n');
    const error = await migrate(pool, dir).catch((caught: Error) => caught);
    expect((error as Error).message).to.match(/29991231000000_broken failed and was rolled back/);
    const table = await pool.query(`SELECT to_regclass('half_done') AS t`);
    expect(table.rows[0].t).to.equal(null);
    const recorded = await pool.query(`SELECT count(*)::int AS n FROM "_prisma_migrations" WHERE migration_name = '29991231000000_broken'`);
    expect(recorded.rows[0].n).to.equal(0);
  });
});

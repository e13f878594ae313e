import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import pg from 'pg';
import { migrate } from '../../src/db/migrator.js';
import { createTestDatabase, dropTestDatabase, testPool } from '../support/database.js';
import { describeSchema } from './introspect.js';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;

// The migrations must build exactly the schema that schema.prisma describes:
// one database is built by our migrator, the other from the SQL Prisma derives
// from schema.prisma alone, and their introspected schemas are compared.
describe('migrations match schema.prisma', function () {
  this.timeout(60000);
  const urls: string[] = [];
  after(async () => {
    for (const url of urls) await dropTestDatabase(url);
  });

  it('produces the same columns, indexes, constraints and enums as prisma migrate diff --from-empty', async () => {
    const migrated = await createTestDatabase();
    const derived = await createTestDatabase();
    urls.push(migrated, derived);

    const pool = testPool({ connectionString: migrated });
    await migrate(pool);
    await pool.end();

    const { stdout: sql } = await run(
      process.execPath,
      ['scripts/prisma-offline.mjs', 'migrate', 'diff', '--from-empty', '--to-schema-datamodel', 'prisma/schema.prisma', '--script'],
      { cwd: ROOT, env: { ...process.env, DATABASE_URL: derived }, maxBuffer: 16 * 1024 * 1024 },
    );
    const client = new pg.Client({ connectionString: derived });
    await client.connect();
    await client.query(sql);
    await client.end();

    const [fromMigrations, fromSchema] = [await describeSchema(migrated), await describeSchema(derived)];
    expect(fromMigrations.columns.length).to.be.greaterThan(100);
    expect(fromMigrations).to.deep.equal(fromSchema);
  });
});

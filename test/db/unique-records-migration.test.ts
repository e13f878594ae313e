import { createHash } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { MIGRATIONS_DIR, migrate, readMigrations } from '../../src/db/migrator.js';
import { createTestDatabase, dropTestDatabase, testPool } from '../support/database.js';

const MIGRATION = '20261123135738_unique_records_and_origins';

// Databases written before the unique indexes may hold duplicates stored by concurrent
// creates; the migration keeps the oldest of each and builds the indexes.
describe('migration to unique DNS records and origins', () => {
  let url: string;
  let pool: pg.Pool;
  let dir: string;
  before(async () => {
    url = await createTestDatabase();
    pool = testPool({ connectionString: url, max: 2 });
    dir = await mkdtemp(path.join(tmpdir(), 'cdn-migrations-'));
    for (const { name } of await readMigrations()) {
      if (name < MIGRATION) await cp(path.join(MIGRATIONS_DIR, name), path.join(dir, name), { recursive: true });
    }
    await migrate(pool, dir);
  });
  after(async () => {
    await pool.end();
    await dropTestDatabase(url);
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps the oldest of duplicate records and origins, digests content and refuses new duplicates', async () => {
    const { rows } = await pool.query<{ id: string }>(`INSERT INTO domains (domain, name, zone_name, updated_at) VALUES ('old.example', 'old.example', 'old.example', now()) RETURNING id`);
    const domainId = rows[0].id;
    for (const [id, age] of [['record-old', 2], ['record-young', 1]] as const) {
      await pool.query(`INSERT INTO dns_records (id, domain_id, type, name, content, created_at, updated_at) VALUES ($1, $2, 'TXT', 'twin', 'v=1', now() - make_interval(mins => $3), now())`, [id, domainId, age]);
    }
    for (const [id, age] of [['origin-old', 2], ['origin-young', 1]] as const) {
      await pool.query(`INSERT INTO origins (id, domain_id, host, port, created_at, updated_at) VALUES ($1, $2, 'o.example.net', 443, now() - make_interval(mins => $3), now())`, [id, domainId, age]);
    }

    await cp(path.join(MIGRATIONS_DIR, MIGRATION), path.join(dir, MIGRATION), { recursive: true });
    expect(await migrate(pool, dir)).to.deep.equal([MIGRATION]);

    const records = await pool.query('SELECT id, content_digest FROM dns_records');
    expect(records.rows).to.deep.equal([{ id: 'record-old', content_digest: createHash('sha256').update('v=1').digest('hex') }]);
    expect((await pool.query('SELECT id FROM origins')).rows).to.deep.equal([{ id: 'origin-old' }]);
    const duplicate = await pool.query(`INSERT INTO origins (domain_id, host, port, updated_at) VALUES ($1, 'o.example.net', 443, now())`, [domainId]).catch((error: Error) => error);
    expect((duplicate as Error).message).to.match(/origins_domain_id_scheme_host_port_key/);
  });
});

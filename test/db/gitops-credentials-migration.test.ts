import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { MIGRATIONS_DIR, migrate, readMigrations } from '../../src/db/migrator.js';
import { createTestDatabase, dropTestDatabase, testPool } from '../support/database.js';
import { URL_CREDENTIAL_CASES } from '../support/url-credential-cases.js';

const MIGRATION = '20261127090000_gitops_repo_without_credentials';
const TOKEN = 'ghs_migrationToken123';
const WITH_TOKEN = `https://x-access-token:${TOKEN}@github.com/acme/cdn.git`;
const CLEAN = 'https://github.com/acme/cdn.git';

// Runs and acceptances recorded before repositories were named without credentials were keyed by
// the URL with its token; the migration moves them under the clean name, so their history stays visible.
describe('migration of GitOps repositories to names without credentials', () => {
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

  it('renames runs, acceptances and audited acceptances, strips errors, and keeps one acceptance per commit', async () => {
    const run = (repo: string, sha: string, status: string, error: string | null) =>
      pool.query(`INSERT INTO gitops_runs (repo, commit_sha, trigger, status, started_at, error) VALUES ($1, $2, 'start', $3, now(), $4)`, [repo, sha, status, error]);
    await run(WITH_TOKEN, 'a'.repeat(40), 'applied', null);
    await run(WITH_TOKEN, 'b'.repeat(40), 'failed', `fatal: unable to access '${WITH_TOKEN}/': The requested URL returned error: 403`);
    await run('/srv/git/work', 'c'.repeat(40), 'applied', null);
    const accept = (repo: string, reason: string) => pool.query(`INSERT INTO gitops_acceptances (repo, commit_sha, reason, actor, safety) VALUES ($1, $2, $3, 'ops', 'gate')`, [repo, 'b'.repeat(40), reason]);
    await accept(CLEAN, 'older, clean');
    await accept(WITH_TOKEN, 'newer, with the token');
    await pool.query(`INSERT INTO audit_events (actor, actor_type, action, target_type, detail) VALUES ('ops', 'admin', 'gitops.accept_refused_plan', 'gitops_commit', $1)`, [{ body: { repo: WITH_TOKEN, commit_sha: 'b'.repeat(40), reason: 'newer' } }]);

    await cp(path.join(MIGRATIONS_DIR, MIGRATION), path.join(dir, MIGRATION), { recursive: true });
    expect(await migrate(pool, dir)).to.deep.equal([MIGRATION]);

    const runs = await pool.query('SELECT repo, error FROM gitops_runs ORDER BY id');
    expect(runs.rows).to.deep.equal([
      { repo: CLEAN, error: null },
      { repo: CLEAN, error: `fatal: unable to access '${CLEAN}/': The requested URL returned error: 403` },
      { repo: '/srv/git/work', error: null },
    ]);
    expect((await pool.query('SELECT repo, reason FROM gitops_acceptances')).rows).to.deep.equal([{ repo: CLEAN, reason: 'newer, with the token' }]);
    expect((await pool.query(`SELECT detail->'body'->>'repo' AS repo FROM audit_events`)).rows).to.deep.equal([{ repo: CLEAN }]);
    const everything = JSON.stringify((await pool.query('SELECT * FROM gitops_runs')).rows) + JSON.stringify((await pool.query('SELECT * FROM audit_events')).rows);
    expect(everything).to.not.include(TOKEN);
  });

  it('strips credentials by the same rule as the service', async () => {
    const rule = (await readMigrations()).find((file) => file.name === MIGRATION)!.sql.match(/CREATE FUNCTION[\s\S]*?\$\$;/)![0];
    const client = await pool.connect();
    try {
      await client.query(rule);
      for (const [input, shown] of URL_CREDENTIAL_CASES) {
        expect((await client.query('SELECT pg_temp.without_url_credentials($1) AS shown', [input])).rows[0].shown, input).to.equal(shown);
      }
    } finally {
      client.release(true);
    }
  });
});

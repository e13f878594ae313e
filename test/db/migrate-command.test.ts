import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { readMigrations } from '../../src/db/migrator.js';
import { createTestDatabase, dropTestDatabase } from '../support/database.js';

const exec = promisify(execFile);
const CLI = new URL('../../bin/cdn.js', import.meta.url).pathname;

describe('cdn migrate', function () {
  this.timeout(60000);
  let url: string;
  before(async () => {
    url = await createTestDatabase();
  });
  after(async () => {
    await dropTestDatabase(url);
  });

  const cdn = (...args: string[]) => exec(process.execPath, [CLI, 'migrate', ...args], { env: { ...process.env, DATABASE_URL: url, CDN_LOG_LEVEL: 'silent' }, timeout: 30000 });

  it('lists every migration as pending, applies them, then lists them as applied', async () => {
    const names = (await readMigrations()).map((migration) => migration.name);
    const before = (await cdn('--status')).stdout;
    for (const name of names) expect(before).to.match(new RegExp(`^pending\\s+${name}$`, 'm'));
    expect(before).to.include(`0 applied, ${names.length} pending`);

    const applied = (await cdn()).stdout;
    for (const name of names) expect(applied).to.include(`applied ${name}`);

    const after = (await cdn('--status')).stdout;
    for (const name of names) expect(after).to.match(new RegExp(`^applied\\s+${name}\\s+\\(`, 'm'));
    expect((await cdn()).stdout).to.include('database schema is up to date');
  });
});

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { TestCore } from '../../support/core.js';

const exec = promisify(execFile);
const CLI = new URL('../../../bin/cdn.js', import.meta.url).pathname;

describe('cdn admin commands', function () {
  this.timeout(60000);
  let core: TestCore;
  before(async () => {
    core = await TestCore.start();
  });
  after(async () => {
    await core.stop();
  });

  async function cdn(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const env = { ...process.env, DATABASE_URL: core.databaseUrl, CDN_LOG_LEVEL: 'silent' };
    return exec(process.execPath, [CLI, 'admin', ...args], { env, timeout: 30000 }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );
  }

  const login = (username: string, password: string, status: number) => core.post('/api/v1/admin/login', { username, password }, status);

  it('creates an admin who can then log in, and refuses a duplicate', async () => {
    const created = await cdn('create', 'alice', '--password', 'alice-password-1');
    expect(created.code).to.equal(0);
    expect(created.stdout).to.match(/^created admin alice \(/);
    await login('alice', 'alice-password-1', 200);
    const duplicate = await cdn('create', 'alice', '--password', 'other-password');
    expect(duplicate.code).to.equal(1);
    expect(duplicate.stderr).to.include('admin alice already exists');
  });

  let bobPassword = '';
  it('generates and prints a working password when none is given', async () => {
    const created = await cdn('create', 'bob');
    bobPassword = /password: (\S+)/.exec(created.stdout)?.[1] ?? '';
    expect(bobPassword).to.have.length.greaterThan(8);
    await login('bob', bobPassword, 200);
  });

  it('lists admins as a table and as JSON without password hashes', async () => {
    const table = await cdn('list');
    expect(table.stdout).to.match(/^alice\s+active/m);
    const json = JSON.parse((await cdn('list', '--json')).stdout) as { username: string }[];
    expect(json.map((user) => user.username)).to.include.members(['alice', 'bob']);
    expect(JSON.stringify(json)).to.not.include('scrypt$');
  });

  it('resets a password and revokes the old sessions', async () => {
    const session = (await login('alice', 'alice-password-1', 200)).data;
    const reset = await cdn('reset-password', 'alice', '--password', 'alice-password-2');
    expect(reset.code).to.equal(0);
    await core.get('/api/v1/admin/me', 401, { token: session.token });
    await login('alice', 'alice-password-1', 401);
    await login('alice', 'alice-password-2', 200);
  });

  it('disables an admin so it can no longer log in', async () => {
    expect((await cdn('disable', 'bob')).code).to.equal(0);
    expect((await cdn('list')).stdout).to.match(/^bob\s+disabled/m);
    await login('bob', bobPassword, 401);
  });

  it('fails with a clear message for an unknown user', async () => {
    const result = await cdn('disable', 'nobody');
    expect(result.code).to.equal(1);
    expect(result.stderr).to.include('admin user not found');
  });

  it('rejects a short password', async () => {
    const result = await cdn('create', 'carol', '--password', 'short');
    expect(result.code).to.equal(1);
    expect(result.stderr).to.include('password must be 8 to 1024 characters');
  });
});

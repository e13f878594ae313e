import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { hashToken } from '../../../src/http/tokens.js';
import { createTestDatabase, dropTestDatabase } from '../../support/database.js';

const exec = promisify(execFile);
const CLI = new URL('../../../bin/cdn.js', import.meta.url).pathname;

describe('cdn edge-token commands', function () {
  this.timeout(60000);
  let url: string;
  before(async () => {
    url = await createTestDatabase();
  });
  after(async () => {
    await dropTestDatabase(url);
  });

  const cdn = (...args: string[]) => exec(process.execPath, [CLI, 'edge-token', ...args], { env: { ...process.env, DATABASE_URL: url, CDN_LOG_LEVEL: 'silent' }, timeout: 30000 });

  it('creates a bound token printed once, lists it, and revokes it by prefix', async () => {
    const created = (await cdn('create', '--name', 'fra', '--edge-id', 'edge-fra-1')).stdout;
    const token = /^token: (cdnedge_\S+)$/m.exec(created)?.[1];
    expect(token).to.be.a('string');
    expect(created).to.include('bound to edge-fra-1');
    const listed = JSON.parse((await cdn('list', '--json')).stdout);
    expect(listed).to.have.length(1);
    expect(listed[0]).to.include({ name: 'fra', edge_id: 'edge-fra-1', revoked: false, prefix: token!.slice(0, 14) });
    expect(JSON.stringify(listed)).to.not.include(token!).and.to.not.include(hashToken(token!));
    expect((await cdn('revoke', token!.slice(0, 14))).stdout).to.include('revoked');
    expect((await cdn('list')).stdout).to.match(/fra\s+edge-fra-1\s+revoked/);
    const missing = await cdn('revoke', 'nope').then(() => undefined, (error: { code: number; stderr: string }) => error);
    expect(missing?.code).to.equal(1);
    expect(missing?.stderr).to.include('edge token not found');
  });
});

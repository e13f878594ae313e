import { expect } from 'chai';
import pino from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { startCore, type RunningCore } from '../../src/core/start.js';
import { OwnCluster } from '../support/cluster.js';

async function status(url: string): Promise<{ status: number; body: any }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.json() };
}

// The database goes away under a running core and comes back on the same address:
// requests get 503, the process stays up, and everything recovers without a restart.
// Only the authenticated readiness detail says why (the reason names the database's address).
describe('database outage', function () {
  this.timeout(90000);
  let postgres: OwnCluster;
  let core: RunningCore;

  before(async () => {
    postgres = await OwnCluster.create();
    const config = loadConfig({ DATABASE_URL: postgres.url, CDN_CORE_PORT: '0', CDN_LOG_LEVEL: 'silent' });
    core = await startCore(config, pino({ level: 'silent' }));
  });
  after(async () => {
    await core?.stop();
    await postgres?.remove();
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
    expect(ready.body).to.deep.equal({ status: 'fail', checks: { database: 'fail', migrations: 'unknown' } });
    const address = `${new URL(postgres.url).hostname}:${new URL(postgres.url).port}`;
    const health = JSON.stringify((await status(`${core.url}/cdn-health`)).body);
    expect(health).to.not.include(address);
    expect(health).to.not.include('ECONNREFUSED');
    const detail = await status(`${core.url}/api/v1/readiness`);
    expect(detail.body.checks.database).to.match(/^fail: .*ECONNREFUSED/);
    const write = await fetch(`${core.url}/api/v1/domains`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"domain":"during.example"}' });
    expect(write.status).to.equal(503);
    expect((await status(`${core.url}/health`)).status).to.equal(200);

    await postgres.start();
    expect((await status(`${core.url}/ready`)).body).to.deep.equal({ status: 'ok', checks: { database: 'ok', migrations: 'ok' } });
    const after = await status(`${core.url}/api/v1/domains`);
    expect(after.status).to.equal(200);
    expect(after.body.data.map((domain: { domain: string }) => domain.domain)).to.deep.equal(['outage.example']);
  });
});

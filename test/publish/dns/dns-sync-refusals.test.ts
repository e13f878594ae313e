import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { loadConfig } from '../../../src/config/load.js';
import { DnsSync } from '../../../src/publish/dns/dns-sync.js';
import { PowerDnsClient } from '../../../src/publish/dns/powerdns-client.js';
import { TestCore } from '../../support/core.js';

// Refusals real PowerDNS does not produce on demand (a 422 for a zone, a 401 for every call):
// a loopback server answering from a script plays PowerDNS; the core's database is real.
describe('DNS sync against a PowerDNS that refuses', () => {
  let core: TestCore;
  let server: http.Server;
  let answer: (method: string, url: string) => { status: number; body: unknown };
  let now = Date.now();

  before(async () => {
    core = await TestCore.start();
    server = http.createServer((req, res) => {
      const { status, body } = answer(req.method!, req.url!);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await core.stop();
  });

  const sync = () => {
    const config = loadConfig({ DATABASE_URL: core.databaseUrl, CDN_POWERDNS_API_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, CDN_POWERDNS_API_KEY: 'k', CDN_SYNC_INTERVAL_SECONDS: '30' });
    const client = new PowerDnsClient({ url: config.powerdnsApiUrl, apiKey: 'k', serverId: 'localhost', timeoutMs: 2000, maxAttempts: 1 });
    return new DnsSync({ db: core.db, pool: core.core.connection.pool, config, client, logger: pino({ level: 'silent' }), now: () => new Date(now) });
  };
  const failedEvents = () => core.db.dnsSyncEvent.count({ where: { zone_name: 'refused.test', success: false } });

  it('records no zone attempt when PowerDNS refuses the key: the run stops at the listing', async () => {
    const domain = await core.createDomain('keyless.test');
    answer = () => ({ status: 401, body: { error: 'Unauthorized' } });
    const run = await sync().run({ full: true });
    expect(run!.aborted).to.match(/401/);
    expect(run!.zones).to.deep.equal([]);
    expect(await core.db.dnsSyncEvent.count()).to.equal(0);
    await core.delete(`/api/v1/domains/${domain.id}`);
  });

  it('sends a zone PowerDNS refused again only after a doubling delay, and at once when it changes', async () => {
    const domain = await core.createDomain('refused.test');
    await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true });
    answer = (method, url) => (url.endsWith('/zones') && method === 'GET' ? { status: 200, body: [] } : method === 'GET' ? { status: 404, body: { error: 'Not Found' } } : { status: 422, body: { error: 'Record refused' } });
    const runner = sync();
    await runner.run({ full: true });
    const first = await core.db.dnsSyncEvent.findFirstOrThrow({ where: { zone_name: 'refused.test' } });
    expect(first).to.include({ action: 'create', success: false, status_code: 422, error: 'POST /zones: 422 Record refused' });
    now += 1000;
    await runner.run({ full: true });
    expect(await failedEvents()).to.equal(1);
    now += 30_000;
    await runner.run({ full: true });
    expect(await failedEvents()).to.equal(2);
    now += 40_000;
    await runner.run({ full: true });
    expect(await failedEvents()).to.equal(2);
    now += 21_000;
    await runner.run({ full: true });
    expect(await failedEvents()).to.equal(3);
    await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.5' }, 201);
    await runner.run({ full: false });
    expect(await failedEvents()).to.equal(4);
    expect((await core.db.dnsZoneState.findUniqueOrThrow({ where: { domain_id: domain.id } })).attempts).to.equal(4);
  });
});

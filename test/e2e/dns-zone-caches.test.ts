import { expect } from 'chai';
import { TestCore, type Json } from '../support/core.js';
import { eventually } from '../support/eventually.js';
import { PowerDnsServer, powerDnsMissing } from '../support/powerdns.js';

// A PowerDNS with the caches a production server runs (answers 20 s, negative answers 60 s):
// a name asked for before its zone existed must answer as soon as the zone is created, and
// stop answering as soon as it is deleted, not a cache lifetime later.
describe('zones created and deleted behind a caching PowerDNS', function () {
  this.timeout(90000);
  let pdns: PowerDnsServer;
  let core: TestCore;

  before(async () => {
    const missing = powerDnsMissing();
    if (missing) throw new Error(missing);
    pdns = await PowerDnsServer.start({}, { productionCaches: true });
    core = await TestCore.start({ ...pdns.env, CDN_SYNC_INTERVAL_SECONDS: '1', CDN_DEFAULT_NAMESERVERS: 'ns1.platform.test,ns2.platform.test' });
  });

  after(async () => {
    await core?.stop();
    await pdns?.stop();
  });

  const soa = async (name: string) => (await pdns.resolver().resolveSoa(name).then((answer) => answer.nsname, (error: { code?: string }) => error.code ?? 'error'));
  const zoneExists = async (name: string) => (await pdns.api('GET', `/zones/${name}.`)).status === 200;
  // Well inside the cache lifetimes: an answer cached before the change would still be served.
  const soon = (what: string, probe: () => Promise<boolean>) => eventually(what, async () => ((await probe()) ? true : undefined), 5000);

  it('answers for a zone asked for before it existed as soon as it is created, and stops once it is deleted', async () => {
    expect(await soa('early.test')).to.equal('EREFUSED');
    expect(await soa('www.early.test')).to.equal('EREFUSED');
    const domain: Json = await core.createDomain('early.test');
    await eventually('the zone created in PowerDNS', async () => ((await zoneExists('early.test')) ? true : undefined), 30000);
    await soon('the SOA of the new zone', async () => (await soa('early.test')) === 'ns1.platform.test');
    await soon('a name of the new zone', async () => (await soa('www.early.test')) !== 'EREFUSED');

    await core.delete(`/api/v1/domains/${domain.id}`);
    await eventually('the zone deleted from PowerDNS', async () => (!(await zoneExists('early.test')) ? true : undefined), 30000);
    await soon('the deleted zone refused', async () => (await soa('early.test')) === 'EREFUSED');
  });
});

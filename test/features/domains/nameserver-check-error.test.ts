import { expect } from 'chai';
import { TestCore } from '../../support/core.js';
import { FakeDnsServer } from '../../support/dns-server.js';

const PLATFORM = ['ns1.cdn.test', 'ns2.cdn.test'];

// What the last delegation check saw is part of the domain: the observed set when the lookup was
// answered, or why it could not tell (`nameservers_check_error`), so a later reader (the dashboard's
// domain page) does not take an old answer, or none, for the last check's.
describe('the last nameserver check of a domain, in its answer', () => {
  let dns: FakeDnsServer;
  let core: TestCore;
  before(async () => {
    dns = await FakeDnsServer.start();
    core = await TestCore.start({ CDN_NAMESERVER_RESOLVERS: dns.address, CDN_DEFAULT_NAMESERVERS: PLATFORM.join(','), CDN_NAMESERVER_LOOKUP_TIMEOUT_MS: '500' });
  });
  after(async () => {
    await core.stop();
    await dns.stop();
  });
  const read = async (id: string) => (await core.get(`/api/v1/domains/${id}`)).data;

  it('keeps why the last lookup could not tell, until a lookup is answered', async () => {
    const domain = await core.createDomain('unanswered.example');
    expect(domain).to.include({ nameservers_checked_at: null, nameservers_check_error: null });
    dns.failing.add('unanswered.example');
    await core.post(`/api/v1/domains/${domain.id}/nameservers/verify`, undefined);
    const failed = await read(domain.id);
    expect(failed.nameservers_check_error).to.equal('NS lookup of unanswered.example failed: ESERVFAIL');
    expect(failed.nameservers_checked_at).to.be.a('number');
    expect((await core.get('/api/v1/domains?q=unanswered')).data[0].nameservers_check_error).to.equal(failed.nameservers_check_error);

    dns.failing.delete('unanswered.example');
    dns.delegations.set('unanswered.example', ['ns1.other.test']);
    await core.post(`/api/v1/domains/${domain.id}/verify-nameservers`, undefined);
    expect(await read(domain.id)).to.deep.include({ nameservers_check_error: null, observed_nameservers: ['ns1.other.test'] });

    // A failed lookup after an answered one: the earlier answer's set stays, with the error beside it.
    dns.failing.add('unanswered.example');
    await core.post(`/api/v1/domains/${domain.id}/verify-nameservers`, undefined);
    expect(await read(domain.id)).to.deep.include({ nameservers_check_error: 'NS lookup of unanswered.example failed: ESERVFAIL', observed_nameservers: ['ns1.other.test'] });
  });

  it('forgets the error with the observed set when the apex moves', async () => {
    const domain = await core.createDomain('moving-apex.example');
    dns.failing.add('moving-apex.example');
    await core.post(`/api/v1/domains/${domain.id}/nameservers/verify`, undefined);
    expect((await read(domain.id)).nameservers_check_error).to.be.a('string');
    const moved = (await core.patch(`/api/v1/domains/${domain.id}`, { domain: 'moved-apex.example' })).data;
    expect(moved).to.deep.include({ nameservers_check_error: null, observed_nameservers: [] });
  });
});

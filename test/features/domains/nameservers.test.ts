import { expect } from 'chai';
import { TestCore } from '../../support/core.js';
import { FakeDnsServer } from '../../support/dns-server.js';

const PLATFORM = ['ns1.cdn.test', 'ns2.cdn.test'];

describe('nameserver verification and activation', () => {
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

  it('activates a pending domain whose NS records match the platform nameservers', async () => {
    const domain = await core.createDomain('delegated.example');
    dns.delegations.set('delegated.example', ['NS2.cdn.test.', 'ns1.cdn.test']);
    const verified = (await core.post(`/api/v1/domains/${domain.id}/verify-nameservers`, undefined)).data;
    expect(verified.status).to.equal('active');
    expect(verified.observed_nameservers).to.deep.equal(PLATFORM);
    expect(verified.activated_at).to.be.a('number');
    expect(verified.activation_override).to.equal(false);
  });

  it('keeps a domain pending while it is delegated elsewhere', async () => {
    const domain = await core.createDomain('elsewhere.example');
    dns.delegations.set('elsewhere.example', ['ns1.other-dns.test', 'ns2.other-dns.test']);
    const verified = (await core.post(`/api/v1/domains/${domain.id}/verify-nameservers`, undefined)).data;
    expect(verified.status).to.equal('pending_nameserver');
    expect(verified.observed_nameservers).to.deep.equal(['ns1.other-dns.test', 'ns2.other-dns.test']);
    expect(verified.nameservers_checked_at).to.be.a('number');
  });

  it('does not count a partial delegation (an extra foreign nameserver) as verified', async () => {
    const domain = await core.createDomain('partial.example');
    dns.delegations.set('partial.example', [...PLATFORM, 'ns9.other-dns.test']);
    expect((await core.post(`/api/v1/domains/${domain.id}/verify-nameservers`, undefined)).data.status).to.equal('pending_nameserver');
  });

  it('returns an active domain to pending_nameserver when the delegation moves away', async () => {
    const domain = await core.createDomain('moving.example');
    dns.delegations.set('moving.example', PLATFORM);
    await core.post(`/api/v1/domains/${domain.id}/verify-nameservers`, undefined);
    dns.delegations.set('moving.example', ['ns1.other-dns.test']);
    const moved = (await core.post(`/api/v1/domains/${domain.id}/verify-nameservers`, undefined)).data;
    expect(moved.status).to.equal('pending_nameserver');
    expect(moved.activated_at).to.equal(null);
  });

  it('changes nothing but the check time when the lookup fails, and says why', async () => {
    const domain = await core.createDomain('flaky.example');
    dns.delegations.set('flaky.example', PLATFORM);
    await core.post(`/api/v1/domains/${domain.id}/verify-nameservers`, undefined);
    dns.failing.add('flaky.example');
    const result = await core.post(`/api/v1/domains/${domain.id}/verify-nameservers`, undefined);
    expect(result.data.status).to.equal('active');
    expect(result.warning).to.match(/NS lookup of flaky.example failed/);
  });

  it('refuses to activate an undelegated domain without override (422 naming override)', async () => {
    const domain = await core.createDomain('nodelegation.example');
    const error = await core.post(`/api/v1/domains/${domain.id}/activate`, {}, 422);
    expect(error.field).to.equal('override');
    expect(error.detail).to.include('ns1.cdn.test');
    expect((await core.get(`/api/v1/domains/${domain.id}`)).data.status).to.equal('pending_nameserver');
  });

  it('activates with override and records that it was overridden', async () => {
    const domain = await core.createDomain('override.example');
    const active = (await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true })).data;
    expect(active).to.include({ status: 'active', activation_override: true });
    const audit = (await core.get(`/api/v1/audit?domain_id=${domain.id}`)).data;
    expect(audit[0]).to.include({ action: 'domain.activate', target_id: domain.id });
    expect(audit[0].detail).to.deep.equal({ body: { override: true } });
  });

  it('activates without override when the delegation already matches', async () => {
    const domain = await core.createDomain('ready.example');
    dns.delegations.set('ready.example', PLATFORM);
    const active = (await core.post(`/api/v1/domains/${domain.id}/activate`, undefined)).data;
    expect(active).to.include({ status: 'active', activation_override: false });
  });

  it('rejects a non-boolean override with 422', async () => {
    const domain = await core.createDomain('typed.example');
    expect((await core.post(`/api/v1/domains/${domain.id}/activate`, { override: 'yes' }, 422)).field).to.equal('override');
  });
});

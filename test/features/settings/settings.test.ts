import { expect } from 'chai';
import { TestCore } from '../../support/core.js';

describe('settings and anycast', () => {
  let core: TestCore;
  before(async () => {
    core = await TestCore.start();
  });
  after(async () => {
    await core.stop();
  });

  it('lists every group with documented defaults', async () => {
    const settings = (await core.get('/api/v1/settings')).data;
    expect(Object.keys(settings)).to.include.members(['dns', 'nameservers', 'edge', 'security', 'cache', 'analytics', 'anycast']);
    expect(settings.dns).to.include({ default_ttl: 300, soa_refresh: 7200, soa_retry: 3600, soa_expire: 1209600, soa_minimum: 60, soa_ttl: 60 });
    expect(settings.anycast).to.deep.equal({ anycast_ipv4: [], anycast_ipv6: [] });
  });

  it('patches a group, resets a key with null and answers 404 for an unknown group', async () => {
    expect((await core.patch('/api/v1/settings/dns', { default_ttl: 600, soa_minimum: 120 })).data).to.include({ default_ttl: 600, soa_minimum: 120 });
    expect((await core.get('/api/v1/settings/dns')).data.default_ttl).to.equal(600);
    expect((await core.patch('/api/v1/settings/dns', { default_ttl: null })).data.default_ttl).to.equal(300);
    await core.get('/api/v1/settings/nope', 404);
    await core.patch('/api/v1/settings/nope', { a: 1 }, 404);
  });

  it('rejects unknown keys and bad values with 422 and stores nothing', async () => {
    const error = await core.patch('/api/v1/settings/dns', { default_ttl: 5, colour: 'red' }, 422);
    expect(error.field).to.equal('dns.default_ttl');
    expect(error.errors.map((problem: { field: string }) => problem.field)).to.deep.equal(['dns.default_ttl', 'dns.colour']);
    expect((await core.get('/api/v1/settings/dns')).data.default_ttl).to.equal(300);
  });

  it('validates a whole document and lists every problem', async () => {
    expect((await core.post('/api/v1/settings/validate', { dns: { default_ttl: 120 }, security: { security_level: 'high' } })).data).to.deep.equal({ valid: true });
    const error = await core.post('/api/v1/settings/validate', { dns: { default_ttl: 1 }, bogus: {}, security: { security_level: 'paranoid' }, nameservers: { hostnames: 'ns1.example.net, not a host' } }, 422);
    expect(error.errors.map((problem: { field: string }) => problem.field)).to.deep.equal(['dns.default_ttl', 'bogus', 'security.security_level', 'nameservers.hostnames']);
  });

  it('stores nameserver hostnames normalised, and new domains expect them', async () => {
    await core.patch('/api/v1/settings/nameservers', { hostnames: 'NS1.Platform.example.\nns2.platform.example' });
    expect((await core.createDomain('after-settings.example')).expected_nameservers).to.deep.equal(['ns1.platform.example', 'ns2.platform.example']);
  });

  it('accepts anycast addresses separated by commas, spaces or new lines and stores them per family', async () => {
    const put = (await core.put('/api/v1/admin/edge-network/anycast', { anycast_ipv4: '192.0.2.1,192.0.2.2 192.0.2.3\n192.0.2.1', anycast_ipv6: ['2001:DB8::1'] })).data;
    expect(put).to.deep.equal({ anycast_ipv4: ['192.0.2.1', '192.0.2.2', '192.0.2.3'], anycast_ipv6: ['2001:db8::1'] });
    expect((await core.get('/api/v1/admin/edge-network/anycast')).data).to.deep.equal(put);
    expect((await core.get('/api/v1/settings/anycast')).data).to.deep.equal(put);
    expect((await core.put('/api/v1/admin/edge-network/anycast', { anycast_ipv4: '2001:db8::1' }, 422)).field).to.equal('anycast.anycast_ipv4');
    expect((await core.put('/api/v1/admin/edge-network/anycast', {}, 422)).detail).to.match(/fewer than 1 properties/);
  });
});

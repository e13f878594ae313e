import { expect } from 'chai';
import { TestCore, type Json } from '../support/core.js';
import { eventually } from '../support/eventually.js';
import { PowerDnsServer, powerDnsMissing } from '../support/powerdns.js';

// The domain lifecycle driven by delegation, with two real pdns_server processes: the platform's
// (the core publishes to it) and the world's view of the domain's NS set (CDN_NAMESERVER_RESOLVERS
// asks it; moving the delegation is a change of its NS RRset). Answers are read with real queries.
describe('delegation lifecycle against real PowerDNS servers', function () {
  this.timeout(90000);
  const PLATFORM = ['ns1.platform.test', 'ns2.platform.test'];
  let platform: PowerDnsServer;
  let world: PowerDnsServer;
  let core: TestCore;

  before(async () => {
    const missing = powerDnsMissing();
    if (missing) throw new Error(missing);
    platform = await PowerDnsServer.start();
    world = await PowerDnsServer.start();
    core = await TestCore.start({ ...platform.env, CDN_BOOTSTRAP_ADMIN_USER: '1', CDN_BOOTSTRAP_ADMIN_USERNAME: 'admin', CDN_BOOTSTRAP_ADMIN_PASSWORD: 'admin-password', CDN_SYNC_INTERVAL_SECONDS: '1', CDN_DEFAULT_NAMESERVERS: PLATFORM.join(','), CDN_NAMESERVER_RESOLVERS: `127.0.0.1:${world.dnsPort}`, CDN_NAMESERVER_LOOKUP_TIMEOUT_MS: '1000' });
  });

  after(async () => {
    await core?.stop();
    await platform?.stop();
    await world?.stop();
  });

  const delegate = async (apex: string, nameservers: string[]) => {
    const rrsets = [{ name: `${apex}.`, type: 'NS', ttl: 60, changetype: 'REPLACE', records: nameservers.map((ns) => ({ content: `${ns}.`, disabled: false })) }];
    const exists = (await world.api('GET', `/zones/${apex}.`)).status === 200;
    const answer = exists ? await world.api('PATCH', `/zones/${apex}.`, { rrsets }) : await world.api('POST', '/zones', { name: `${apex}.`, kind: 'Native', nameservers: nameservers.map((ns) => `${ns}.`) });
    expect(answer.status).to.be.oneOf([201, 204]);
  };
  const platformA = async (name: string) => platform.resolver().resolve4(name).catch((error: { code?: string }) => error.code ?? 'error');
  const until = (what: string, probe: () => Promise<unknown>, expected: unknown) => eventually(what, async () => (JSON.stringify(await probe()) === JSON.stringify(expected) ? true : undefined), 30000);
  const verify = async (id: string) => (await core.post(`/api/v1/domains/${id}/nameservers/verify`, undefined)).data;

  it('publishes a domain once delegated, withdraws its records when delegation moves away, republishes them when it is back', async () => {
    const domain: Json = await core.createDomain('lifecycle.test');
    await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.80' }, 201);
    await until('the zone with SOA and NS only', async () => (await platform.resolver().resolveNs('lifecycle.test').catch(() => [])).sort(), PLATFORM);
    expect(await platformA('www.lifecycle.test')).to.equal('ENOTFOUND');

    await delegate('lifecycle.test', PLATFORM);
    const verified = await verify(domain.id);
    expect(verified).to.include({ status: 'active', previous_status: 'pending_nameserver', delegated: true });
    expect(verified.ssl_job_id).to.be.a('string');
    await until('www published', () => platformA('www.lifecycle.test'), ['192.0.2.80']);

    await delegate('lifecycle.test', ['ns1.elsewhere.test', 'ns2.elsewhere.test']);
    const moved = await verify(domain.id);
    expect(moved).to.deep.include({ status: 'pending_nameserver', delegated: false, observed: ['ns1.elsewhere.test', 'ns2.elsewhere.test'], missing: PLATFORM });
    await until('www withdrawn', () => platformA('www.lifecycle.test'), 'ENOTFOUND');
    expect((await platform.resolver().resolveNs('lifecycle.test')).sort()).to.deep.equal(PLATFORM);
    expect((await platform.resolver().resolveSoa('lifecycle.test')).nsname).to.equal('ns1.platform.test');
    expect((await core.get(`/api/v1/domains/${domain.id}/dns/records`)).data.map((record: Json) => record.content)).to.deep.equal(['192.0.2.80']);

    await delegate('lifecycle.test', PLATFORM);
    expect(await verify(domain.id)).to.include({ status: 'active', delegated: true });
    await until('www republished', () => platformA('www.lifecycle.test'), ['192.0.2.80']);
  });

  it('force-verify publishes a domain whose delegation cannot be observed', async () => {
    const domain: Json = await core.createDomain('unobservable.test');
    await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.81' }, 201);
    // The world's server has no zone for it: the NS lookup is refused, which proves nothing either way.
    const report = await verify(domain.id);
    expect(report).to.include({ status: 'pending_nameserver', delegated: null });
    expect(report.lookup_error).to.match(/NS lookup of unobservable.test failed/);
    const session = (await core.post('/api/v1/admin/login', { username: 'admin', password: 'admin-password' })).data.token;
    const forced = (await core.post(`/api/v1/domains/${domain.id}/nameservers/force-verify`, { reason: 'split-horizon delegation' }, 200, { token: session })).data;
    expect(forced.domain).to.include({ status: 'active', activation_override: true });
    await until('www published after force-verify', () => platformA('www.unobservable.test'), ['192.0.2.81']);
  });
});

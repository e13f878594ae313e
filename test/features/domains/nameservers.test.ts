import { expect } from 'chai';
import pino from 'pino';
import { TestCore } from '../../support/core.js';
import { FakeDnsServer } from '../../support/dns-server.js';
import { checkDueDomains } from '../../../src/features/domains/nameserver-checks.js';
import { delegationLookup } from '../../../src/features/domains/delegation.js';
import { loadConfig } from '../../../src/config/load.js';

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

describe('nameserver endpoints: verify, force-verify, reseed-expected, scheduled checks', () => {
  const ADMIN = { CDN_BOOTSTRAP_ADMIN_USER: '1', CDN_BOOTSTRAP_ADMIN_USERNAME: 'admin', CDN_BOOTSTRAP_ADMIN_PASSWORD: 'admin-password' };
  let dns: FakeDnsServer;
  let core: TestCore;
  let session: string;
  before(async () => {
    dns = await FakeDnsServer.start();
    core = await TestCore.start({ ...ADMIN, CDN_API_TOKEN: 'the-api-token', CDN_NAMESERVER_RESOLVERS: dns.address, CDN_DEFAULT_NAMESERVERS: PLATFORM.join(','), CDN_NAMESERVER_LOOKUP_TIMEOUT_MS: '500' });
    core.token = 'the-api-token';
    session = (await core.post('/api/v1/admin/login', { username: 'admin', password: 'admin-password' })).data.token;
  });
  after(async () => {
    await core.stop();
    await dns.stop();
  });
  const changeSeq = async () => Number((await core.db.publishState.findUnique({ where: { id: 1 } }))?.change_seq ?? 0n);

  it('verify answers the sets compared, and queues the managed certificate once when the domain turns active', async () => {
    const domain = await core.createDomain('verify.example');
    dns.delegations.set('verify.example', ['ns1.cdn.test', 'ns3.other.test']);
    const partial = (await core.post(`/api/v1/domains/${domain.id}/nameservers/verify`, undefined)).data;
    expect(partial).to.include({ domain_id: domain.id, status: 'pending_nameserver', previous_status: 'pending_nameserver', delegated: false, lookup_error: null, ssl_job_id: null });
    expect(partial).to.deep.include({ expected: PLATFORM, observed: ['ns1.cdn.test', 'ns3.other.test'], matched: ['ns1.cdn.test'], missing: ['ns2.cdn.test'], unexpected: ['ns3.other.test'] });
    dns.delegations.set('verify.example', PLATFORM);
    const verified = (await core.post(`/api/v1/domains/${domain.id}/nameservers/verify`, undefined)).data;
    expect(verified).to.include({ status: 'active', previous_status: 'pending_nameserver', delegated: true });
    const job = await core.db.sslJob.findUniqueOrThrow({ where: { id: verified.ssl_job_id } });
    expect(job).to.deep.include({ domain_id: domain.id, kind: 'managed', status: 'queued', hostnames: ['verify.example', '*.verify.example'] });
    dns.delegations.set('verify.example', ['ns1.other.test']);
    await core.post(`/api/v1/domains/${domain.id}/nameservers/verify`, undefined);
    dns.delegations.set('verify.example', PLATFORM);
    expect((await core.post(`/api/v1/domains/${domain.id}/nameservers/verify`, undefined)).data).to.include({ status: 'active', ssl_job_id: null });
    expect(await core.db.sslJob.count({ where: { domain_id: domain.id } })).to.equal(1);
  });

  it('verify reports the stored sets and a null verdict when the lookup cannot tell', async () => {
    const domain = await core.createDomain('unknown.example');
    dns.failing.add('unknown.example');
    const report = (await core.post(`/api/v1/domains/${domain.id}/nameservers/verify`, undefined)).data;
    expect(report).to.include({ status: 'pending_nameserver', delegated: null });
    expect(report.lookup_error).to.match(/NS lookup of unknown.example failed/);
    expect(report.expected).to.deep.equal(PLATFORM);
  });

  it('force-verify is for admin sessions: 403 for the API token, 422 without a reason', async () => {
    const domain = await core.createDomain('forced.example');
    const refused = await core.post(`/api/v1/domains/${domain.id}/nameservers/force-verify`, { reason: 'registrar API is down' }, 403);
    expect(refused.error).to.equal('admin session required');
    expect((await core.post(`/api/v1/domains/${domain.id}/nameservers/force-verify`, {}, 422, { token: session })).field).to.equal('reason');
    expect((await core.post(`/api/v1/domains/${domain.id}/nameservers/force-verify`, { reason: '  ' }, 422, { token: session })).field).to.equal('reason');
    expect((await core.get(`/api/v1/domains/${domain.id}`)).data.status).to.equal('pending_nameserver');
  });

  it('force-verify activates a pending domain, audited with its reason, and marks the config dirty', async () => {
    const domain = await core.createDomain('forced2.example');
    const before = await changeSeq();
    const forced = (await core.post(`/api/v1/domains/${domain.id}/nameservers/force-verify`, { reason: 'delegation hidden behind a split-horizon resolver' }, 200, { token: session })).data;
    expect(forced).to.include({ previous_status: 'pending_nameserver', forced: true, reason: 'delegation hidden behind a split-horizon resolver' });
    expect(forced.domain).to.include({ status: 'active', activation_override: true });
    expect(await changeSeq()).to.be.greaterThan(before);
    const audit = (await core.get(`/api/v1/audit?domain_id=${domain.id}`)).data;
    expect(audit[0]).to.include({ action: 'domain.nameservers_force_verify', target_id: domain.id, actor: 'admin' });
    expect(audit[0].detail).to.deep.equal({ body: { reason: 'delegation hidden behind a split-horizon resolver' } });
    const again = (await core.post(`/api/v1/domains/${domain.id}/nameservers/force-verify`, { reason: 'again' }, 200, { token: session })).data;
    expect(again).to.include({ previous_status: 'active', forced: false });
  });

  it('keeps a forced domain active while its delegation is unobserved, until a check has seen it match', async () => {
    const domain = await core.createDomain('sticky.example');
    await core.post(`/api/v1/domains/${domain.id}/nameservers/force-verify`, { reason: 'parent zone not reachable from here' }, 200, { token: session });
    dns.delegations.set('sticky.example', ['ns1.other.test']);
    expect((await core.post(`/api/v1/domains/${domain.id}/nameservers/verify`, undefined)).data.status).to.equal('active');
    dns.delegations.set('sticky.example', PLATFORM);
    await core.post(`/api/v1/domains/${domain.id}/nameservers/verify`, undefined);
    expect((await core.get(`/api/v1/domains/${domain.id}`)).data).to.include({ status: 'active', activation_override: false });
    dns.delegations.set('sticky.example', ['ns1.other.test']);
    expect((await core.post(`/api/v1/domains/${domain.id}/nameservers/verify`, undefined)).data.status).to.equal('pending_nameserver');
  });

  it('reseed-expected follows the platform nameservers, keeps overlapping and observed rows, and is audited', async () => {
    const domain = await core.createDomain('reseed.example');
    dns.delegations.set('reseed.example', ['ns1.cdn.test', 'ns7.other.test']);
    await core.post(`/api/v1/domains/${domain.id}/nameservers/verify`, undefined);
    const kept = await core.db.domainNameserver.findFirstOrThrow({ where: { domain_id: domain.id, kind: 'expected', hostname: 'ns1.cdn.test' } });
    await core.patch('/api/v1/settings/nameservers', { hostnames: ['ns1.cdn.test', 'ns3.cdn.test'] });
    await core.post(`/api/v1/domains/${domain.id}/nameservers/reseed-expected`, undefined, 403);
    const before = await changeSeq();
    const reseeded = (await core.post(`/api/v1/domains/${domain.id}/nameservers/reseed-expected`, undefined, 200, { token: session })).data;
    expect(reseeded).to.deep.include({ expected: ['ns1.cdn.test', 'ns3.cdn.test'], added: ['ns3.cdn.test'], removed: ['ns2.cdn.test'], kept: ['ns1.cdn.test'], observed: ['ns1.cdn.test', 'ns7.other.test'], matched: ['ns1.cdn.test'], missing: ['ns3.cdn.test'] });
    expect(reseeded.domain.status).to.equal('pending_nameserver');
    const still = await core.db.domainNameserver.findFirstOrThrow({ where: { domain_id: domain.id, kind: 'expected', hostname: 'ns1.cdn.test' } });
    expect(still.first_seen_at.getTime()).to.equal(kept.first_seen_at.getTime());
    expect(await core.db.domainNameserver.count({ where: { domain_id: domain.id, kind: 'observed' } })).to.equal(2);
    expect(await changeSeq()).to.be.greaterThan(before);
    expect((await core.get(`/api/v1/domains/${domain.id}`)).data.status).to.equal('pending_nameserver');
    expect((await core.get(`/api/v1/audit?domain_id=${domain.id}`)).data[0]).to.include({ action: 'domain.nameservers_reseed_expected', actor: 'admin' });
    await core.patch('/api/v1/settings/nameservers', { hostnames: null });
  });

  it('answers the same verify, reseed or force-verify sent 50 times at once with 200 each, leaving one set of rows', async () => {
    const domain = await core.createDomain('parallel.example');
    dns.delegations.set('parallel.example', ['ns1.cdn.test', 'ns3.other.test']);
    const burst = async (path: string, body?: unknown, token = 'the-api-token') => {
      const answers = await Promise.all(Array.from({ length: 50 }, () => fetch(`${core.url}/api/v1/domains/${domain.id}/nameservers/${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined })));
      return answers.map((answer) => answer.status);
    };
    expect(new Set(await burst('verify'))).to.deep.equal(new Set([200]));
    await core.patch('/api/v1/settings/nameservers', { hostnames: ['ns1.cdn.test', 'ns9.cdn.test'] });
    expect(new Set(await burst('reseed-expected', undefined, session))).to.deep.equal(new Set([200]));
    expect(new Set(await burst('force-verify', { reason: 'fifty at once' }, session))).to.deep.equal(new Set([200]));
    const rows = await core.db.domainNameserver.findMany({ where: { domain_id: domain.id }, orderBy: [{ kind: 'asc' }, { hostname: 'asc' }], select: { kind: true, hostname: true } });
    expect(rows.map((row) => `${row.kind} ${row.hostname}`)).to.deep.equal(['expected ns1.cdn.test', 'expected ns9.cdn.test', 'observed ns1.cdn.test', 'observed ns3.other.test']);
    expect(await core.db.sslJob.count({ where: { domain_id: domain.id } })).to.equal(0);
    await core.patch('/api/v1/settings/nameservers', { hostnames: null });
  });

  it('moves a domain and queues its certificate once when 50 checks see its delegation at the same time', async () => {
    const domain = await core.createDomain('racing.example');
    dns.delegations.set('racing.example', PLATFORM);
    const answers = await Promise.all(Array.from({ length: 50 }, () => core.post(`/api/v1/domains/${domain.id}/nameservers/verify`, undefined)));
    expect(answers.filter((answer) => answer.data.ssl_job_id !== null)).to.have.length(1);
    expect(await core.db.sslJob.count({ where: { domain_id: domain.id } })).to.equal(1);
    expect((await core.get(`/api/v1/domains/${domain.id}`)).data.status).to.equal('active');
  });

  it('checks due domains on schedule, moving their status and marking the config dirty', async () => {
    const domain = await core.createDomain('scheduled.example');
    dns.delegations.set('scheduled.example', PLATFORM);
    const config = loadConfig({ CDN_NAMESERVER_RESOLVERS: dns.address, CDN_NAMESERVER_LOOKUP_TIMEOUT_MS: '500' });
    const options = { db: core.db, pool: core.core.connection.pool, config, logger: pino({ level: 'silent' }), lookup: delegationLookup(config) };
    const before = await changeSeq();
    // A day later every pending or active domain is due, the new one first (never checked).
    const round = await checkDueDomains({ ...options, now: () => new Date(Date.now() + 86400_000 + 1000) });
    expect(round!.checked).to.be.greaterThan(0);
    expect(round!.moved).to.be.greaterThan(0);
    expect((await core.get(`/api/v1/domains/${domain.id}`)).data.status).to.equal('active');
    expect(await changeSeq()).to.be.greaterThan(before);
    const soon = await checkDueDomains({ ...options, now: () => new Date(Date.now() + 86400_000 + 2000) });
    expect(soon).to.deep.equal({ checked: 0, moved: 0 });
  });
});

import { expect } from 'chai';
import { TestCore, type Json } from '../support/core.js';
import { FakeDnsServer } from '../support/dns-server.js';

const TOKEN = 'batch-activation-token';
const PLATFORM = ['ns1.cdn.test', 'ns2.cdn.test'];

// What an activation answers that depends on which domain it was, not on how it was sent.
const OWN_FIELDS = ['id', 'domain', 'name', 'zone_name', 'display_name', 'created_at', 'updated_at', 'activated_at', 'nameservers_checked_at', 'nameservers_verified_at'];
function shapeOf(domain: Json): Json {
  return Object.fromEntries(Object.entries(domain).filter(([key]) => !OWN_FIELDS.includes(key)));
}

// Domain activation (with `override`) may run inside POST /api/v1/batch, exactly as when sent alone.
describe('POST /api/v1/batch: domain activation', function () {
  this.timeout(60000);
  let dns: FakeDnsServer;
  let core: TestCore;

  const domainNamed = (apex: string) => core.db.domain.findFirst({ where: { domain: apex } });
  const onboarding = (apex: string, activate: Record<string, unknown> | undefined) => ({
    operations: [
      { ref: 'd', method: 'POST', path: '/api/v1/domains', body: { domain: apex } },
      { method: 'POST', path: '/api/v1/domains/@{d}/dns/records', body: { type: 'A', name: 'www', content: '192.0.2.10', proxied: true } },
      { method: 'POST', path: '/api/v1/domains/@{d}/origins', body: { host: `origin.${apex}` } },
      { method: 'POST', path: '/api/v1/domains/@{d}/activate', ...(activate ? { body: activate } : {}) },
    ],
  });

  before(async () => {
    dns = await FakeDnsServer.start();
    core = await TestCore.start({ CDN_API_TOKEN: TOKEN, CDN_NAMESERVER_RESOLVERS: dns.address, CDN_DEFAULT_NAMESERVERS: PLATFORM.join(','), CDN_NAMESERVER_LOOKUP_TIMEOUT_MS: '500' });
    core.token = TOKEN;
  });
  after(async () => {
    await core.stop();
    await dns.stop();
  });

  it('creates a domain, adds items and activates it by @{ref} with override, audited and marking the config dirty once', async () => {
    const seqBefore = (await core.db.publishState.findUnique({ where: { id: 1 } }))?.change_seq ?? 0n;
    const answer = await core.post('/api/v1/batch', onboarding('onboard-one.example', { override: true }), 200, { headers: { 'x-request-id': 'batch-activate-1' } });
    const results = answer.data.results as Json[];
    expect(results.map((result) => result.status)).to.deep.equal([201, 201, 201, 200]);
    const activated = results[3].body.data;
    expect(activated).to.include({ status: 'active', activation_override: true });
    expect(activated.activated_at).to.be.a('number');
    expect((await domainNamed('onboard-one.example'))!.status).to.equal('active');
    const audit = await core.db.auditEvent.findMany({ where: { request_id: 'batch-activate-1' }, orderBy: { id: 'asc' } });
    expect(audit.map((event) => event.action)).to.deep.equal(['domain.create', 'dns_record.create', 'origin.create', 'domain.activate']);
    expect(audit[3]).to.include({ target_id: activated.id, domain_id: activated.id });
    expect((await core.db.publishState.findUniqueOrThrow({ where: { id: 1 } })).change_seq).to.equal(seqBefore + 1n);
  });

  it('answers what the single route answers, for an override and for a verified delegation (which queues the managed certificate)', async () => {
    const alone = await core.createDomain('alone.example');
    const single = (await core.post(`/api/v1/domains/${alone.id}/activate`, { override: true })).data;
    const batched = (await core.post('/api/v1/batch', onboarding('batched.example', { override: true }))).data.results[3].body.data;
    expect(shapeOf(batched)).to.deep.equal(shapeOf(single));

    dns.delegations.set('delegated-batch.example', PLATFORM);
    const delegated = (await core.post('/api/v1/batch', onboarding('delegated-batch.example', undefined))).data.results[3].body.data;
    expect(delegated).to.include({ status: 'active', activation_override: false });
    expect(delegated.observed_nameservers).to.deep.equal(PLATFORM);
    const jobs = await core.db.sslJob.findMany({ where: { domain_id: delegated.id } });
    expect(jobs.map((job) => [job.status, job.hostnames])).to.deep.equal([['queued', ['delegated-batch.example', '*.delegated-batch.example']]]);
  });

  it('rolls the whole batch back when the activation is refused, answering the single route’s status and error under its operation', async () => {
    const alone = await core.createDomain('refused-alone.example');
    const single = await core.post(`/api/v1/domains/${alone.id}/activate`, {}, 422);
    const answer = await core.post('/api/v1/batch', onboarding('refused-batch.example', {}), 422);
    expect(answer).to.include({ error: single.error, field: 'operations[3].body.override', operation: 3 });
    expect(answer.detail).to.match(/^operation 3 \(POST \/api\/v1\/domains\/@\{d\}\/activate\): nameservers are not delegated/);
    expect(await domainNamed('refused-batch.example')).to.equal(null);
  });

  it('refuses activating a disabled domain with 422, as the single route does, and writes nothing', async () => {
    const domain = await core.createDomain('disabled-batch.example');
    await core.patch(`/api/v1/domains/${domain.id}`, { status: 'disabled' });
    const answer = await core.post(
      '/api/v1/batch',
      {
        operations: [
          { method: 'POST', path: `/api/v1/domains/${domain.id}/dns/records`, body: { type: 'A', name: 'www', content: '192.0.2.10' } },
          { method: 'POST', path: `/api/v1/domains/${domain.id}/activate`, body: { override: true } },
        ],
      },
      422,
    );
    expect(answer).to.include({ field: 'operations[1].body.status', operation: 1 });
    expect(await core.db.dnsRecord.count({ where: { domain_id: domain.id } })).to.equal(0);
    expect((await domainNamed('disabled-batch.example'))!.status).to.equal('disabled');
  });
});

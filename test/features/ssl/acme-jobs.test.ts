import { expect } from 'chai';
import { queueDueRenewals, reclaimStaleJobs } from '../../../src/features/ssl/ssl-scheduler.js';
import { TestCore, type Json } from '../../support/core.js';

// The job endpoints and the scheduler's bookkeeping, without a CA: CDN_SSL_ACME_DIRECTORY_URL is
// unset, so this core's scheduler leaves jobs queued and only the calls below move them.
describe('SSL jobs', function () {
  this.timeout(60000);
  let core: TestCore;
  let domain: Json;
  const path = (suffix: string) => `/api/v1/domains/${domain.id}/ssl/${suffix}`;

  before(async () => {
    core = await TestCore.start();
    domain = await core.createDomain('jobs.example');
    await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true });
    await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.10', proxied: true }, 201);
  });
  after(async () => {
    await core?.stop();
  });
  afterEach(async () => {
    await core.db.sslJob.deleteMany();
    await core.db.sslCertificate.deleteMany();
  });

  it('queues an issuance on each of the three request paths with their statuses, answering the job', async () => {
    const { data: first } = await core.post(path('request'), { hostnames: ['api.jobs.example'] }, 200);
    expect(first).to.include({ kind: 'issue', status: 'queued', attempts: 0, last_error: null, challenge: null });
    expect(first.hostnames).to.deep.equal(['api.jobs.example']);
    const { data: second } = await core.post(path('acme/issue'), { hostnames: ['*.jobs.example'], challenge: 'dns-01' }, 200);
    expect(second).to.include({ challenge: 'dns-01' });
    const { data: third } = await core.post(path('request-cert'), undefined, 202);
    expect(third.hostnames, 'the proxied names by default').to.deep.equal(['www.jobs.example']);
  });

  it('answers the waiting job when the same request comes again', async () => {
    const { data: first } = await core.post(path('request'), {}, 200);
    const { data: again } = await core.post(path('request-cert'), {}, 202);
    expect(again.id).to.equal(first.id);
    expect(await core.db.sslJob.count()).to.equal(1);
  });

  it('refuses names outside the domain and unknown challenges with 422, unknown domains with 404', async () => {
    const refused = await core.post(path('request'), { hostnames: ['www.other.example'] }, 422);
    expect(refused).to.include({ field: 'hostnames' });
    await core.post(path('request'), { challenge: 'tls-alpn-01' }, 422);
    await core.post('/api/v1/domains/00000000-0000-0000-0000-000000000000/ssl/renew', undefined, 404);
    expect(await core.db.sslJob.count()).to.equal(0);
  });

  it('renews the newest ACME certificate on POST renew (202)', async () => {
    const certificate = await core.db.sslCertificate.create({ data: { domain_id: domain.id, source: 'acme', status: 'active', hostnames: ['www.jobs.example'], not_after: new Date(Date.now() + 86400000) } });
    const { data: job } = await core.post(path('renew'), undefined, 202);
    expect(job).to.include({ kind: 'renew', certificate_id: certificate.id, status: 'queued' });
  });

  it('shows jobs with attempts and last error, and the account as not configured', async () => {
    const { data: job } = await core.post(path('request'), {}, 200);
    await core.db.sslJob.update({ where: { id: job.id }, data: { attempts: 2, last_error: 'the CA said no' } });
    const { data } = await core.get(path('acme-status'));
    expect(data.account).to.include({ status: 'not_configured' });
    expect(data.jobs).to.have.length(1);
    expect(data.jobs[0]).to.include({ id: job.id, status: 'queued', attempts: 2, last_error: 'the CA said no' });
  });

  it('puts a running job whose core stopped back in the queue with backoff, and fails it after 5 attempts', async () => {
    const now = new Date();
    const stale = { domain_id: domain.id, kind: 'issue', status: 'running', hostnames: ['www.jobs.example'], locked_by: 'core-gone', locked_at: new Date(now.getTime() - 600000) };
    const retried = await core.db.sslJob.create({ data: { ...stale, attempts: 2 } });
    const exhausted = await core.db.sslJob.create({ data: { ...stale, attempts: 5 } });
    const fresh = await core.db.sslJob.create({ data: { ...stale, attempts: 1, locked_at: now, locked_by: 'core-alive' } });
    await reclaimStaleJobs(core.core.connection.pool, now, 300000);
    const rows = new Map((await core.db.sslJob.findMany()).map((row) => [row.id, row]));
    expect(rows.get(retried.id)).to.include({ status: 'queued', locked_by: null });
    expect(rows.get(retried.id)!.run_after.getTime() - now.getTime()).to.equal(120000);
    expect(rows.get(retried.id)!.last_error).to.include('core-gone');
    expect(rows.get(exhausted.id)).to.include({ status: 'failed' });
    expect(rows.get(fresh.id)).to.include({ status: 'running', locked_by: 'core-alive' });
  });

  it('warns critically of a certificate expiring within 14 days past its renewal time, not of one whose renewal is not due', async () => {
    const inThreeDays = new Date(Date.now() + 3 * 86400000);
    const overdue = await core.db.sslCertificate.create({ data: { domain_id: domain.id, source: 'acme', status: 'active', hostnames: ['www.jobs.example'], not_after: inThreeDays, renew_after: new Date(Date.now() - 86400000) } });
    await core.db.sslCertificate.create({ data: { domain_id: domain.id, source: 'acme', status: 'active', hostnames: ['api.jobs.example'], not_after: inThreeDays, renew_after: new Date(Date.now() + 86400000) } });
    const { data } = await core.get('/api/v1/overview/warnings');
    const expiring = data.warnings.filter((warning: Json) => warning.code === 'certificate_expiring');
    expect(expiring.map((warning: Json) => [warning.severity, warning.detail.certificate_id])).to.deep.equal([['critical', overdue.id]]);
  });

  it('queues one renewal per due ACME certificate of an active domain, however many cores scan at once', async () => {
    const past = new Date(Date.now() - 1000);
    const due = await core.db.sslCertificate.create({ data: { domain_id: domain.id, source: 'acme', status: 'active', hostnames: ['www.jobs.example'], not_after: new Date(Date.now() + 86400000), renew_after: past } });
    await core.db.sslCertificate.create({ data: { domain_id: domain.id, source: 'acme', status: 'active', hostnames: ['api.jobs.example'], not_after: new Date(Date.now() + 86400000), renew_after: new Date(Date.now() + 3600000) } });
    await core.db.sslCertificate.create({ data: { domain_id: domain.id, source: 'manual', status: 'active', hostnames: ['m.jobs.example'], not_after: new Date(Date.now() + 86400000), renew_after: past } });
    const pending = await core.createDomain('pending-jobs.example');
    await core.db.sslCertificate.create({ data: { domain_id: pending.id, source: 'acme', status: 'active', hostnames: ['pending-jobs.example'], not_after: new Date(Date.now() + 86400000), renew_after: past } });
    const pool = core.core.connection.pool;
    await Promise.all([queueDueRenewals(pool, new Date()), queueDueRenewals(pool, new Date()), queueDueRenewals(pool, new Date())]);
    await queueDueRenewals(pool, new Date());
    const jobs = await core.db.sslJob.findMany();
    expect(jobs.map((job) => [job.kind, job.certificate_id])).to.deep.equal([['renew', due.id]]);
  });
});


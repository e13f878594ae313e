import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import pino from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { startCore, type RunningCore } from '../../src/core/start.js';
import { TestCore, type Json } from '../support/core.js';
import { eventually } from '../support/eventually.js';
import { sslJobsFinished } from '../support/ssl-jobs.js';
import { Pebble, pebbleMissing } from '../support/pebble.js';
import { PowerDnsServer, powerDnsMissing } from '../support/powerdns.js';

const VALIDITY_SECONDS = 600;

// Two cores on one database run the scheduler against pebble (DNS-01 through pdns_server), which
// issues 10-minute certificates, as short-lived as the tests can make them.
describe('the SSL scheduler on two cores against pebble', function () {
  this.timeout(150000);
  const apex = 'acme-two.test';
  let pdns: PowerDnsServer;
  let pebble: Pebble;
  let core: TestCore;
  let second: RunningCore;
  let domainId: string;

  before(async function () {
    const missing = powerDnsMissing() ?? pebbleMissing();
    if (missing) throw new Error(missing);
    pdns = await PowerDnsServer.start();
    pebble = await Pebble.start({ httpPort: 1, dnsServer: `127.0.0.1:${pdns.dnsPort}`, validityPeriodSeconds: VALIDITY_SECONDS });
    const env = {
      ...pdns.env,
      CDN_SYNC_INTERVAL_SECONDS: '1',
      CDN_DEFAULT_NAMESERVERS: 'ns1.platform.test,ns2.platform.test',
      CDN_SSL_SECRET_KEY: randomBytes(32).toString('base64'),
      CDN_SSL_ACME_DIRECTORY_URL: pebble.directoryUrl,
      CDN_SSL_ACME_CA_FILE: pebble.tlsCaFile,
      CDN_SSL_SCHEDULER_INTERVAL_SECONDS: '1',
    };
    core = await TestCore.start(env);
    second = await startCore(loadConfig({ CDN_CORE_PORT: '0', CDN_LOG_LEVEL: 'silent', CDN_PUBLISH_ENABLED: 'false', DATABASE_URL: core.databaseUrl, ...env }), pino({ level: 'silent' }));
    domainId = (await core.createDomain(apex)).id;
    await core.post(`/api/v1/domains/${domainId}/activate`, { override: true });
  });

  after(async () => {
    await second?.stop();
    await core?.stop();
    await pebble?.stop();
    await pdns?.stop();
  });

  const allFinished = (): Promise<Json[]> => sslJobsFinished(core, domainId);

  it('runs each job once: one certificate per job, each job in one attempt', async () => {
    const names = ['a', 'b', 'c', 'd'].map((label) => `${label}.${apex}`);
    for (const name of names) await core.post(`/api/v1/domains/${domainId}/ssl/request`, { hostnames: [name] }, 200);
    const jobs = await allFinished();
    expect(jobs.map((job: Json) => [job.status, job.attempts, job.last_error])).to.deep.equal(names.map(() => ['succeeded', 1, null]));
    const certificates = await core.db.sslCertificate.findMany({ orderBy: { created_at: 'asc' } });
    expect(certificates.map((row) => row.hostnames[0]).sort()).to.deep.equal(names);
    expect(new Set(jobs.map((job: Json) => job.certificate_id)).size).to.equal(names.length);
  });

  it('sets the renewal two thirds into a short lifetime, and renews by itself once it is due', async () => {
    const before = await core.db.sslCertificate.findFirstOrThrow({ where: { hostnames: { has: `a.${apex}` }, status: 'active' } });
    const lifetime = before.not_after!.getTime() - before.not_before!.getTime();
    expect(Math.abs(lifetime / 1000 - VALIDITY_SECONDS)).to.be.lessThan(5);
    expect(before.renew_after!.getTime()).to.be.closeTo(before.not_before!.getTime() + (lifetime * 2) / 3, 1);
    // The clock moved past the renewal time.
    await core.db.sslCertificate.update({ where: { id: before.id }, data: { renew_after: new Date(Date.now() - 1000) } });
    const renewed = await eventually('the renewal stored', () => core.db.sslCertificate.findFirst({ where: { hostnames: { has: `a.${apex}` }, status: 'active', id: { not: before.id } } }).then((row) => row ?? undefined), 60000);
    expect((await core.db.sslCertificate.findUniqueOrThrow({ where: { id: before.id } })).status).to.equal('replaced');
    const renewals = await core.db.sslJob.findMany({ where: { kind: 'renew' } });
    expect(renewals.map((job) => [job.status, job.certificate_id])).to.deep.equal([['succeeded', renewed.id]]);
  });
});

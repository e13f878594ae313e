import { randomBytes, X509Certificate } from 'node:crypto';
import { expect } from 'chai';
import { TestCore, type Json } from '../support/core.js';
import { eventually } from '../support/eventually.js';
import { sslJobFinished } from '../support/ssl-jobs.js';
import { Pebble, pebbleMissing } from '../support/pebble.js';
import { PowerDnsServer, powerDnsMissing } from '../support/powerdns.js';

// Issuance against a real ACME CA (Debian's pebble) validating DNS-01 through the test's
// pdns_server, which the core's DNS sync publishes the _acme-challenge TXT records to.
describe('ACME issuance by DNS-01 against pebble', function () {
  this.timeout(120000);
  const apex = 'acme-dns.test';
  let pdns: PowerDnsServer;
  let pebble: Pebble;
  let core: TestCore;
  let domainId: string;

  before(async function () {
    const missing = powerDnsMissing() ?? pebbleMissing();
    if (missing) throw new Error(missing);
    // With the packet and query caches of production: a name asked for before it existed must not stay invisible.
    pdns = await PowerDnsServer.start({}, { productionCaches: true });
    pebble = await Pebble.start({ httpPort: 1, dnsServer: `127.0.0.1:${pdns.dnsPort}` });
    core = await TestCore.start({
      ...pdns.env,
      CDN_SYNC_INTERVAL_SECONDS: '1',
      CDN_DEFAULT_NAMESERVERS: 'ns1.platform.test,ns2.platform.test',
      CDN_SSL_SECRET_KEY: randomBytes(32).toString('base64'),
      CDN_SSL_ACME_DIRECTORY_URL: pebble.directoryUrl,
      CDN_SSL_ACME_CA_FILE: pebble.tlsCaFile,
      CDN_SSL_ACME_EMAIL: 'ops@acme-dns.test',
      CDN_SSL_SCHEDULER_INTERVAL_SECONDS: '1',
    });
    domainId = (await core.createDomain(apex)).id;
    await core.post(`/api/v1/domains/${domainId}/activate`, { override: true });
  });

  after(async () => {
    await core?.stop();
    await pebble?.stop();
    await pdns?.stop();
  });

  const finished = (jobId: string): Promise<Json> => sslJobFinished(core, domainId, jobId);

  const certificates = async (): Promise<Json[]> => (await core.get(`/api/v1/domains/${domainId}/ssl/certificates`)).data;

  it('issues the apex and its wildcard, verified up to pebble\'s root', async () => {
    await eventually('the zone published', async () => ((await pdns.resolver().resolveSoa(apex).catch(() => undefined)) ? true : undefined));
    expect(await pdns.resolver().resolveTxt(`_acme-challenge.${apex}`).catch((error: { code?: string }) => error.code)).to.equal('ENOTFOUND');
    const { data: job } = await core.post(`/api/v1/domains/${domainId}/ssl/request-cert`, { hostnames: [apex, `*.${apex}`] }, 202);
    expect(job).to.include({ status: 'queued', kind: 'issue', attempts: 0, last_error: null });
    const done = await finished(job.id);
    expect(done, done.last_error).to.include({ status: 'succeeded', attempts: 1 });
    const [certificate] = await certificates();
    expect(certificate).to.include({ id: done.certificate_id, source: 'acme', status: 'active' });
    expect(certificate.hostnames).to.have.members([apex, `*.${apex}`]);

    const stored = await core.db.sslCertificate.findUniqueOrThrow({ where: { id: certificate.id } });
    const leaf = new X509Certificate(stored.certificate_pem!);
    const chain = (stored.chain_pem ?? '').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)!.map((pem) => new X509Certificate(pem));
    const root = new X509Certificate(await pebble.issuingRoot());
    const path = [leaf, ...chain, root];
    for (let index = 1; index < path.length; index++) expect(path[index - 1].verify(path[index].publicKey), `certificate ${index - 1} is signed by ${index}`).to.equal(true);
    expect(leaf.checkHost(`www.${apex}`)).to.equal(`*.${apex}`);
    expect(stored.private_key_encrypted).to.match(/^cdnbox1\./);
  });

  it('removes the _acme-challenge TXT records after validation', async () => {
    expect(await core.db.acmeChallenge.count()).to.equal(0);
    await eventually('the TXT records gone', async () => {
      const txt = await pdns.resolver().resolveTxt(`_acme-challenge.${apex}`).catch((): string[][] => []);
      return txt.length === 0 ? true : undefined;
    });
  });

  it('renews on demand: the new certificate is active and the old one replaced', async () => {
    const [before] = await certificates();
    const { data: job } = await core.post(`/api/v1/domains/${domainId}/ssl/renew`, undefined, 202);
    expect(job).to.include({ kind: 'renew', certificate_id: before.id });
    const done = await finished(job.id);
    expect(done, done.last_error).to.include({ status: 'succeeded' });
    const all = await certificates();
    expect(all.map((row: Json) => [row.id, row.status])).to.deep.equal([
      [done.certificate_id, 'active'],
      [before.id, 'replaced'],
    ]);
  });

  it('shows the account without its key, and no key anywhere in the API, audit or export', async () => {
    const { data } = await core.get(`/api/v1/domains/${domainId}/ssl/acme-status`);
    expect(data.account).to.include({ directory_url: pebble.directoryUrl, status: 'valid', email: 'ops@acme-dns.test' });
    const seen = JSON.stringify([data, await core.get(`/api/v1/domains/${domainId}/ssl`), await certificates(), await core.get('/api/v1/audit?limit=500'), await core.get('/api/v1/export/domains')]);
    expect(seen).not.to.match(/PRIVATE KEY|cdnbox1\./);
    const account = await core.db.acmeAccount.findFirstOrThrow();
    expect(account.key_encrypted).to.match(/^cdnbox1\./);
  });
});

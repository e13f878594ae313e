import { randomBytes, X509Certificate } from 'node:crypto';
import { expect } from 'chai';
import { freePort } from '../support/cluster.js';
import { TestCore, type Json } from '../support/core.js';
import { EdgeProcess } from '../support/edge-process.js';
import { createSite, publish, TestOrigin } from '../support/edge-site.js';
import { eventually } from '../support/eventually.js';
import { sslJobFinished } from '../support/ssl-jobs.js';
import { Pebble, pebbleMissing } from '../support/pebble.js';
import { PowerDnsServer, powerDnsMissing } from '../support/powerdns.js';

const TOKEN = 'cdnedge_e2e-acme-http-token-0123456789abcdef';
const apex = 'acme-http.test';

// HTTP-01 through a real `cdn edge`: pebble resolves the names through the test's pdns_server
// (the proxied records answer the edge's address, 127.0.0.1) and validates on the edge's plain
// port, which asks the core for the token on a miss.
describe('ACME issuance by HTTP-01 through a real edge', function () {
  this.timeout(120000);
  let pdns: PowerDnsServer;
  let pebble: Pebble;
  let core: TestCore;
  let origin: TestOrigin;
  let edge: EdgeProcess;
  let domainId: string;

  before(async function () {
    const missing = powerDnsMissing() ?? pebbleMissing();
    if (missing) throw new Error(missing);
    pdns = await PowerDnsServer.start();
    // The core's port is picked first: the edge needs it, pebble needs the edge's port, the core needs pebble's directory.
    const corePort = await freePort();
    edge = await EdgeProcess.start({ coreUrl: `http://127.0.0.1:${corePort}`, token: TOKEN, edgeId: 'acme-edge', env: { CDN_EDGE_PUBLIC_IP: '127.0.0.1', CDN_EDGE_CLEARANCE_SECRET: 'shared-clearance-secret-of-the-acme-edges-01' }, waitReady: false });
    pebble = await Pebble.start({ httpPort: edge.port, dnsServer: `127.0.0.1:${pdns.dnsPort}` });
    core = await TestCore.start({
      ...pdns.env,
      CDN_CORE_PORT: String(corePort),
      CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN,
      CDN_SYNC_INTERVAL_SECONDS: '1',
      CDN_DEFAULT_NAMESERVERS: 'ns1.platform.test,ns2.platform.test',
      CDN_SSL_SECRET_KEY: randomBytes(32).toString('base64'),
      CDN_SSL_ACME_DIRECTORY_URL: pebble.directoryUrl,
      CDN_SSL_ACME_CA_FILE: pebble.tlsCaFile,
      CDN_SSL_SCHEDULER_INTERVAL_SECONDS: '1',
    });
    origin = await TestOrigin.start('primary');
    const site = await createSite(core, apex, origin.port);
    domainId = site.id;
    // A rule that blocks everything: the ACME answer comes before it.
    await core.post(`/api/v1/domains/${domainId}/waf-rules`, { name: 'block all', match: { paths: [{ kind: 'prefix', value: '/' }] }, action: 'block' }, 201);
    await publish(core);
    await edge.waitReady(1);
    await eventually('www answering the edge address', async () => {
      const answers = await pdns.resolver().resolve4(`www.${apex}`).catch((): string[] => []);
      return answers.includes('127.0.0.1') ? true : undefined;
    }, 30000);
  });

  after(async () => {
    await edge?.stop();
    await core?.stop();
    await origin?.stop();
    await pebble?.stop();
    await pdns?.stop();
  });

  const finished = (jobId: string): Promise<Json> => sslJobFinished(core, domainId, jobId);

  it('answers a stored token at once on the plain port, before the rules, for its host only', async () => {
    expect((await edge.request(`www.${apex}`, '/anything')).status).to.equal(403);
    await core.db.acmeChallenge.create({ data: { token: 'tok-123_abc', domain_id: domainId, hostname: `www.${apex}`, key_authorization: 'tok-123_abc.thumbprint', type: 'http-01', expires_at: new Date(Date.now() + 60000) } });
    const answer = await edge.request(`www.${apex}`, '/.well-known/acme-challenge/tok-123_abc');
    expect([answer.status, answer.body.toString()]).to.deep.equal([200, 'tok-123_abc.thumbprint']);
    expect((await edge.request(apex, '/.well-known/acme-challenge/tok-123_abc')).status).to.equal(404);
    expect((await edge.request(`www.${apex}`, '/.well-known/acme-challenge/unknown')).status).to.equal(404);
    await core.db.acmeChallenge.deleteMany();
  });

  it('issues a certificate for the proxied names, verified up to pebble\'s root', async () => {
    const { data: job } = await core.post(`/api/v1/domains/${domainId}/ssl/request`, {}, 200);
    expect(job.hostnames).to.deep.equal([apex, `www.${apex}`]);
    const done = await finished(job.id);
    expect(done, done.last_error).to.include({ status: 'succeeded' });
    const stored = await core.db.sslCertificate.findUniqueOrThrow({ where: { id: done.certificate_id } });
    expect(stored).to.include({ source: 'acme', status: 'active' });
    const leaf = new X509Certificate(stored.certificate_pem!);
    const chain = (stored.chain_pem ?? '').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)!.map((pem) => new X509Certificate(pem));
    const path = [leaf, ...chain, new X509Certificate(await pebble.issuingRoot())];
    for (let index = 1; index < path.length; index++) expect(path[index - 1].verify(path[index].publicKey)).to.equal(true);
    expect(await core.db.acmeChallenge.count()).to.equal(0);
  });

  it('keeps the certificate in service and warns with the CA\'s error when a renewal fails', async () => {
    const [current] = (await core.get(`/api/v1/domains/${domainId}/ssl`)).data.certificates;
    await edge.stop();
    const { data: job } = await core.post(`/api/v1/domains/${domainId}/ssl/renew`, undefined, 202);
    const done = await finished(job.id);
    expect(done.status).to.equal('failed');
    expect(done.last_error).to.match(/http-01/);
    const { data } = await core.get(`/api/v1/domains/${domainId}/ssl`);
    expect(data.certificates.map((row: Json) => [row.id, row.status])).to.deep.equal([[current.id, 'active']]);
    const { data: overview } = await core.get('/api/v1/overview/warnings');
    const warning = overview.warnings.find((item: Json) => item.code === 'certificate_renewal_failed');
    expect(warning).to.include({ severity: 'warning', domain_id: domainId });
    expect(warning.message).to.include(done.last_error);
  });
});

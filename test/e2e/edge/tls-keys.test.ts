import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { TestCore, type Json } from '../../support/core.js';
import { EdgeProcess } from '../../support/edge-process.js';
import { eventually } from '../../support/eventually.js';
import { createSite, publish, TestOrigin } from '../../support/edge-site.js';
import { makeTestChain, type TestChain } from '../../support/test-certificates.js';
import { handshake } from '../../support/tls-client.js';

const TOKEN = 'cdnedge_e2e-tls-keys-token-0123456789abcdef';

// What an edge does while the core cannot deliver a certificate's key: the other names keep working,
// /ready says which certificate lacks its key, and the key is served once it arrives, without a new snapshot.
describe('cdn edge when a certificate key cannot be delivered', function () {
  this.timeout(90000);
  let core: TestCore;
  let origin: TestOrigin;
  let edge: EdgeProcess;
  let good: TestChain;
  let broken: TestChain;
  let brokenId: string;
  let sealed: string;

  const upload = async (domain: Json, chain: TestChain) =>
    (await core.post(`/api/v1/domains/${domain.id}/ssl/manual-certificate`, { certificate: chain.leaf, private_key: chain.leafKey, chain: chain.intermediate + chain.root })).data.id as string;

  before(async () => {
    [good, broken] = await Promise.all([makeTestChain(['good.example', 'www.good.example']), makeTestChain(['broken.example', 'www.broken.example'])]);
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN, CDN_SSL_SECRET_KEY: randomBytes(32).toString('base64') });
    origin = await TestOrigin.start('keys');
    await upload(await createSite(core, 'good.example', origin.port), good);
    brokenId = await upload(await createSite(core, 'broken.example', origin.port), broken);
    const row = await core.db.sslCertificate.findUniqueOrThrow({ where: { id: brokenId } });
    sealed = row.private_key_encrypted!;
    // Sealed with a key this core does not have: it cannot open it for the edge.
    await core.db.sslCertificate.update({ where: { id: brokenId }, data: { private_key_encrypted: sealed.replace(/^cdnbox1\.[0-9a-f]+\./, 'cdnbox1.0000000000000000.') } });
    await publish(core);
    edge = await EdgeProcess.start({ coreUrl: core.url, token: TOKEN });
  });
  after(async () => {
    await edge?.stop();
    await origin?.stop();
    await core?.stop();
  });

  it('serves the names whose keys arrived, fails the others with an alert, and says which certificate lacks its key', async () => {
    expect((await handshake({ port: edge.httpsPort, servername: 'www.good.example', ca: good.root })).ok).to.equal(true);
    const missing = await handshake({ port: edge.httpsPort, servername: 'www.broken.example' });
    expect(missing.ok).to.equal(false);
    if (!missing.ok) expect(missing.code).to.match(/ALERT/);
    const ready = await edge.waitReady();
    expect(ready.tls).to.deep.equal({ names: 2, certificates_without_key: [brokenId], certificates_unusable: [] });
    expect(ready.warnings).to.include('certificate_keys_missing');
  });

  it('asks again, and serves the certificate once its key opens, without a new snapshot', async () => {
    await core.db.sslCertificate.update({ where: { id: brokenId }, data: { private_key_encrypted: sealed } });
    const result = await eventually('the key to arrive', async () => {
      const attempt = await handshake({ port: edge.httpsPort, servername: 'www.broken.example', ca: broken.root });
      return attempt.ok ? attempt : undefined;
    }, 20000);
    expect(result.ok).to.equal(true);
    const ready = await edge.waitReady();
    expect(ready.tls.certificates_without_key).to.deep.equal([]);
    expect(ready.warnings).to.not.include('certificate_keys_missing');
  });
});

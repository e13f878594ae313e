import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { expect } from 'chai';
import { signedHeaders } from '../../../src/shared/signing.js';
import { TestCore, type Json } from '../../support/core.js';
import { EdgeProcess } from '../../support/edge-process.js';
import { createSite, publish, TestOrigin } from '../../support/edge-site.js';
import { eventually } from '../../support/eventually.js';
import { makeTestChain, type TestChain } from '../../support/test-certificates.js';

const TOKEN = 'cdnedge_ssl-check-token-0123456789abcdef';
const TIMEOUT_MS = 1000;

// A real core connecting to a real `cdn edge`'s TLS port, found through the edge's heartbeat.
describe('POST /domains/:id/ssl/check', function () {
  this.timeout(90000);
  let core: TestCore;
  let origin: TestOrigin;
  let edge: EdgeProcess | undefined;
  let silent: net.Server;
  let site: Json;
  let bare: Json;
  let chain: TestChain;
  let stored: Json;
  const check = (body: unknown, status = 200, domain: Json = site) => core.post(`/api/v1/domains/${domain.id}/ssl/check`, body, status);

  before(async () => {
    chain = await makeTestChain(['check.example', 'www.check.example']);
    const bareChain = await makeTestChain(['bare.example', 'www.bare.example']);
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN, CDN_SSL_SECRET_KEY: randomBytes(32).toString('base64'), CDN_ORIGIN_CHECK_TIMEOUT_MS: String(TIMEOUT_MS) });
    origin = await TestOrigin.start('check');
    site = await createSite(core, 'check.example', origin.port);
    bare = await createSite(core, 'bare.example', origin.port);
    stored = (await core.post(`/api/v1/domains/${site.id}/ssl/manual-certificate`, { certificate: chain.leaf, private_key: chain.leafKey, chain: chain.intermediate + chain.root })).data;
    // Without the root, the chain the edge serves links up to nothing the core trusts.
    await core.post(`/api/v1/domains/${bare.id}/ssl/manual-certificate`, { certificate: bareChain.leaf, private_key: bareChain.leafKey, chain: bareChain.intermediate });
    await publish(core);
    silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    await edge?.stop();
    await origin?.stop();
    silent?.close();
    await core?.stop();
  });

  it('says so when no edge in the pool reports a TLS port', async () => {
    const result = (await check({ hostname: 'www.check.example' })).data;
    expect(result).to.deep.equal({ hostname: 'www.check.example', edge: null, connected: false, error: 'no edge in the pool reports a public_ip and https_port to connect to' });
  });

  it('reports the certificate a pool edge actually serves for the name, with its chain verified', async () => {
    edge = await EdgeProcess.start({ coreUrl: core.url, token: TOKEN, env: { CDN_EDGE_PUBLIC_IP: '127.0.0.1' } });
    // In the pool once a heartbeat reports it healthy (config loaded), which takes longer on a busy machine.
    const result = await eventually('the edge in the pool with its TLS port', async () => {
      const answer = (await check({ hostname: 'WWW.check.example.' })).data;
      return answer.edge ? answer : undefined;
    });
    expect(result).to.deep.include({ hostname: 'www.check.example', edge: { edge_id: 'test-edge', address: '127.0.0.1', port: edge.httpsPort }, connected: true, error: null, alpn: 'http/1.1', covers_hostname: true });
    expect(result.chain).to.deep.equal({ valid: true, error: null });
    expect(result.certificate).to.deep.include({ hostnames: ['check.example', 'www.check.example'], serial: stored.serial, fingerprint_sha256: stored.fingerprint_sha256, not_after: stored.not_after, not_before: stored.not_before });
    expect(result.certificate.issuer).to.include('CN=CDN Test Intermediate');
  });

  it('says the chain does not verify when it links up to no trusted root', async () => {
    const result = (await check({ hostname: 'www.bare.example' }, 200, bare)).data;
    expect(result.connected).to.equal(true);
    expect(result.chain.valid).to.equal(false);
    expect(result.chain.error).to.match(/^[A-Z_]+$/);
  });

  it('says why it could not connect: a TLS alert for a name without a certificate', async () => {
    const result = (await check({ hostname: 'nothing.check.example' })).data;
    expect(result).to.include({ hostname: 'nothing.check.example', connected: false });
    expect(result.error).to.match(/alert handshake failure/);
  });

  it('gives up on an edge that never answers the handshake within CDN_ORIGIN_CHECK_TIMEOUT_MS', async () => {
    const body = JSON.stringify({ edge_id: 'silent-edge', public_ip: '127.0.0.1', https_port: (silent.address() as net.AddressInfo).port, healthy: true });
    const headers = signedHeaders({ token: TOKEN, edgeId: 'silent-edge', method: 'POST', pathWithQuery: '/api/v1/edge/heartbeat', body });
    expect((await fetch(`${core.url}/api/v1/edge/heartbeat`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body })).status).to.equal(200);
    const started = Date.now();
    const result = (await check({ hostname: 'www.check.example', edge_id: 'silent-edge' })).data;
    expect(Date.now() - started).to.be.below(TIMEOUT_MS + 1500);
    expect(result).to.include({ connected: false, error: `no TLS handshake within ${TIMEOUT_MS} ms` });
  });

  it('refuses bad input with 422 naming the field, and an unknown domain with 404', async () => {
    const refusals: [unknown, string][] = [
      [{}, 'hostname'],
      [{ hostname: 7 }, 'hostname'],
      [{ hostname: '' }, 'hostname'],
      [{ hostname: 'www.other.example' }, 'hostname'],
      [{ hostname: 'bad host' }, 'hostname'],
      [{ hostname: 'www.check.example', edge_id: 'no-such-edge' }, 'edge_id'],
      [{ hostname: 'www.check.example', extra: 1 }, 'extra'],
    ];
    for (const [body, field] of refusals) {
      const answer = await check(body, 422);
      expect(answer.field, JSON.stringify(body)).to.equal(field);
    }
    await core.post('/api/v1/domains/00000000-0000-0000-0000-000000000000/ssl/check', { hostname: 'www.check.example' }, 404);
  });
});

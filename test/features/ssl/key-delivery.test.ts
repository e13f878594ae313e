import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import pino from 'pino';
import { openKeys, KeyEnvelopeError } from '../../../src/shared/certificate-key-envelope.js';
import { signedHeaders } from '../../../src/shared/signing.js';
import { TestCore, type Json } from '../../support/core.js';
import { makeTestChain, type TestChain } from '../../support/test-certificates.js';

const TOKEN = 'cdnedge_key-delivery-token-0123456789abcdef';
const KEYS = '/api/v1/edge/certificate-keys';

describe('certificate keys delivered to edges', function () {
  this.timeout(60000);
  let core: TestCore;
  let chain: TestChain;
  let certificateId: string;
  let version: number;
  let logs = '';

  async function edgeGet(pathWithQuery: string, edgeId = 'edge-keys') {
    const headers = signedHeaders({ token: TOKEN, edgeId, method: 'GET', pathWithQuery });
    const response = await fetch(`${core.url}${pathWithQuery}`, { headers });
    return { status: response.status, text: await response.text() };
  }

  before(async () => {
    chain = await makeTestChain(['keys.example', 'www.keys.example']);
    const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => ((logs += chunk.toString()), done()) });
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN, CDN_SSL_SECRET_KEY: randomBytes(32).toString('base64'), CDN_LOG_LEVEL: 'trace' }, pino({ level: 'trace' }, sink));
    const domain = await core.createDomain('keys.example');
    await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true });
    await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.10', proxied: true }, 201);
    certificateId = (await core.post(`/api/v1/domains/${domain.id}/ssl/manual-certificate`, { certificate: chain.leaf, private_key: chain.leafKey, chain: chain.intermediate })).data.id;
    version = (await core.post('/api/v1/config/snapshots/rebuild', undefined)).data.version;
  });
  after(async () => {
    await core?.stop();
  });

  it('answers the keys of the snapshot version, sealed so that only the asking edge\'s token opens them', async () => {
    const answer = await edgeGet(`${KEYS}?version=${version}`);
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.text).to.not.match(/PRIVATE KEY/);
    expect(answer.text).to.not.include(chain.leafKey.split('\n')[1]);
    const envelope: Json = JSON.parse(answer.text).data;
    expect(envelope).to.include({ format: 'cdn-edge-keys-1', edge_id: 'edge-keys', version });
    expect(openKeys(envelope, TOKEN, 'edge-keys')).to.deep.equal({ version, keys: { [certificateId]: chain.leafKey.trim() + '\n' } });
    expect(() => openKeys(envelope, 'cdnedge_another-token-0123456789abcdef', 'edge-keys')).to.throw(KeyEnvelopeError, 'does not open');
    expect(() => openKeys(envelope, TOKEN, 'edge-other')).to.throw(KeyEnvelopeError, 'not edge-other');
    expect(() => openKeys({ ...envelope, edge_id: 'edge-other' }, TOKEN, 'edge-other')).to.throw(KeyEnvelopeError, 'does not open');
    expect(() => openKeys({ ...envelope, version: version + 1 }, TOKEN, 'edge-keys')).to.throw(KeyEnvelopeError, 'does not open');
  });

  it('refuses an unsigned request, an unknown version and a malformed one', async () => {
    expect((await fetch(`${core.url}${KEYS}?version=${version}`)).status).to.equal(401);
    expect((await edgeGet(`${KEYS}?version=${version + 100}`)).status).to.equal(404);
    for (const bad of ['', '?version=', '?version=-1', '?version=1.5', '?version=abc']) {
      const answer = await edgeGet(`${KEYS}${bad}`);
      expect(answer.status, bad).to.equal(422);
      expect(JSON.parse(answer.text).field, bad).to.equal('version');
    }
  });

  it('never writes a key to the core\'s log, even at trace level', () => {
    expect(logs).to.include('/api/v1/edge/certificate-keys');
    expect(logs).to.not.match(/PRIVATE KEY/);
    expect(logs).to.not.include(chain.leafKey.split('\n')[1]);
  });

  it('hands out the keys of an older version only to an edge that reported serving it', async () => {
    const domain = await core.createDomain('later.example');
    await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true });
    const newer = (await core.post('/api/v1/config/snapshots/rebuild', undefined)).data.version;
    expect(newer).to.be.above(version);
    const refused = await edgeGet(`${KEYS}?version=${version}`, 'edge-old');
    expect(refused.status, refused.text).to.equal(409);
    expect(JSON.parse(refused.text).field).to.equal('version');
    const body = JSON.stringify({ edge_id: 'edge-old', config_version: version });
    const headers = signedHeaders({ token: TOKEN, edgeId: 'edge-old', method: 'POST', pathWithQuery: '/api/v1/edge/heartbeat', body });
    expect((await fetch(`${core.url}/api/v1/edge/heartbeat`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body })).status).to.equal(200);
    const served = await edgeGet(`${KEYS}?version=${version}`, 'edge-old');
    expect(served.status, served.text).to.equal(200);
    expect(Object.keys(openKeys(JSON.parse(served.text).data, TOKEN, 'edge-old').keys)).to.deep.equal([certificateId]);
    expect((await edgeGet(`${KEYS}?version=${newer}`, 'edge-new')).status).to.equal(200);
  });
});

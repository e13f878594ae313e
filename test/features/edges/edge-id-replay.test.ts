import { expect } from 'chai';
import { signedHeaders } from '../../../src/shared/signing.js';
import { TestCore, type Json } from '../../support/core.js';

// A shared token is not bound to one edge: every edge of a fleet may speak with it.
const SHARED_TOKEN = 'cdnedge_shared-fleet-token-0123456789';
const USAGE = '/api/v1/collector/usage';

describe('a signed request replayed under another edge id', () => {
  let core: TestCore;
  let domainId: string;
  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: SHARED_TOKEN });
    domainId = (await core.createDomain('replay.example')).id;
  });
  after(async () => {
    await core.stop();
  });

  const post = async (path: string, headers: Record<string, string>, body: string) => {
    const response = await fetch(`${core.url}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
    return { status: response.status, body: (await response.json()) as Json };
  };
  const requestsCounted = async () => (await core.db.usageAggregate.findMany({ where: { bucket: 'minute', domain_id: domainId } })).reduce((sum, row) => sum + Number(row.requests), 0);

  it('is refused with 401, and the usage it carries is counted once', async () => {
    const body = JSON.stringify({ events: [{ domain: 'www.replay.example', path: '/', status: 200, bytes: 10, cache_status: 'MISS', timestamp: Math.floor(Date.now() / 1000) }] });
    const captured = signedHeaders({ token: SHARED_TOKEN, edgeId: 'edge-a', method: 'POST', pathWithQuery: USAGE, body });
    expect((await post(USAGE, captured, body)).status).to.equal(200);
    for (const edgeId of ['edge-b', 'edge-c']) {
      const replay = await post(USAGE, { ...captured, 'x-cdn-edge-id': edgeId }, body);
      expect(replay.status, `replayed as ${edgeId}`).to.equal(401);
      expect(replay.body.error).to.equal('edge authentication failed');
    }
    expect(await requestsCounted()).to.equal(1);
    expect(await core.db.usageEvent.count()).to.equal(1);
  });

  it('remembers a nonce per token, so two edges sharing a token cannot both use it', async () => {
    const nonce = 'shared-token-nonce-0123456789';
    const body = JSON.stringify({ edge_id: 'edge-a' });
    const first = signedHeaders({ token: SHARED_TOKEN, edgeId: 'edge-a', method: 'POST', pathWithQuery: '/api/v1/edge/heartbeat', body, nonce });
    expect((await post('/api/v1/edge/heartbeat', first, body)).status).to.equal(200);
    const otherBody = JSON.stringify({ edge_id: 'edge-b' });
    const second = signedHeaders({ token: SHARED_TOKEN, edgeId: 'edge-b', method: 'POST', pathWithQuery: '/api/v1/edge/heartbeat', body: otherBody, nonce });
    const refused = await post('/api/v1/edge/heartbeat', second, otherBody);
    expect(refused.status).to.equal(401);
    expect(refused.body.detail).to.match(/nonce already used/);
  });

  const MALFORMED_IDS: [string, string][] = [
    ['an edge id longer than 128 characters', 'e'.repeat(129)],
    ['an edge id with a space', 'edge one'],
    ['an edge id with a slash', 'edge/1'],
    ['an edge id with a colon', 'edge:1'],
  ];
  for (const [what, edgeId] of MALFORMED_IDS) {
    it(`answers 401 to ${what} on every edge endpoint, before asking the database`, async () => {
      const nonces = await core.db.edgeNonce.count();
      for (const path of ['/api/v1/edge/register', '/api/v1/edge/heartbeat', '/api/v1/collector/usage', '/api/v1/collector/security-events', '/api/v1/collector/origin-health']) {
        const body = '{}';
        const answer = await post(path, signedHeaders({ token: SHARED_TOKEN, edgeId, method: 'POST', pathWithQuery: path, body }), body);
        expect(answer.status, path).to.equal(401);
        expect(answer.body.detail, path).to.match(/x-cdn-edge-id must be 1-128 of A-Z a-z 0-9 \. _ -/);
      }
      // With a token the database does not know, the edge id is still what is refused: it is checked first.
      const pull = await fetch(`${core.url}/api/v1/edge/config`, { headers: signedHeaders({ token: 'cdnedge_unknown-token', edgeId, method: 'GET', pathWithQuery: '/api/v1/edge/config' }) });
      expect(pull.status).to.equal(401);
      expect((await pull.json()).detail).to.match(/x-cdn-edge-id must be/);
      expect(await core.db.edgeNonce.count()).to.equal(nonces);
    });
  }

  it('accepts an edge id of exactly 128 characters of the documented alphabet', async () => {
    const edgeId = `Edge.1_-${'x'.repeat(120)}`;
    const body = JSON.stringify({ edge_id: edgeId });
    const answer = await post('/api/v1/edge/register', signedHeaders({ token: SHARED_TOKEN, edgeId, method: 'POST', pathWithQuery: '/api/v1/edge/register', body }), body);
    expect(answer.status).to.equal(200);
    expect(answer.body.data.edge_id).to.equal(edgeId);
  });
});

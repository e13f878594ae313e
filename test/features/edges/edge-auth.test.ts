import { expect } from 'chai';
import { signedHeaders } from '../../../src/shared/signing.js';
import { TestCore, type Json } from '../../support/core.js';
import { createEdgeToken, revokeEdgeToken } from '../../../src/features/edges/tokens.js';
import { pruneNonces } from '../../../src/features/edges/edge-auth.js';

const BOOTSTRAP = 'cdnedge_bootstrap-token-for-tests-0123456789';

describe('signed edge requests, register and heartbeat', () => {
  let core: TestCore;
  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: BOOTSTRAP, CDN_EDGE_SIGNATURE_MAX_SKEW_SECONDS: '300', CDN_EDGE_HEARTBEAT_FRESH_SECONDS: '30', CDN_API_TOKEN: 'operator' });
    core.token = 'operator';
  });
  after(async () => {
    await core.stop();
  });

  type Options = { token?: string; edgeId?: string; now?: number; nonce?: string; tamper?: (headers: Record<string, string>) => void; bodyOverride?: string };
  async function edgeCall(path: string, body: unknown, options: Options = {}) {
    const text = JSON.stringify(body);
    const headers = signedHeaders({ token: options.token ?? BOOTSTRAP, edgeId: options.edgeId ?? 'edge-1', method: 'POST', pathWithQuery: path, body: text, now: options.now, nonce: options.nonce });
    options.tamper?.(headers);
    const response = await fetch(`${core.url}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: options.bodyOverride ?? text });
    return { status: response.status, body: (await response.json()) as Json };
  }

  it('registers an edge and counts it in the pool after a heartbeat', async () => {
    const registered = await edgeCall('/api/v1/edge/register', { edge_id: 'edge-1', hostname: 'edge-1.cdn.example', public_ip: '203.0.113.7', region: 'eu-central', country: 'DE', version: '0.1.0' });
    expect(registered.status).to.equal(200);
    expect(registered.body.data).to.include({ edge_id: 'edge-1', in_pool: false, region: 'eu-central' });
    const beat = await edgeCall('/api/v1/edge/heartbeat', { edge_id: 'edge-1', config_version: 3 });
    expect(beat.body.data).to.include({ in_pool: true, health_status: 'healthy', config_version: 3 });
    expect((await core.get('/api/v1/edges/pools')).data.shared).to.deep.include({ members: ['edge-1'], healthy: 1, total: 1 });
    expect((await core.get('/api/v1/edges/dns')).data.ipv4).to.deep.equal({ source: 'edges', addresses: ['203.0.113.7'] });
    expect((await core.get('/api/v1/edge-countries')).data).to.deep.equal([{ country: 'DE', edges: 1 }]);
    expect((await core.get('/api/v1/edge/nodes')).data[0]).to.include({ edge_id: 'edge-1', in_pool: true });
  });

  it('takes an edge out of the pool when it reports itself unhealthy or its heartbeat goes stale', async () => {
    await edgeCall('/api/v1/edge/heartbeat', { edge_id: 'edge-1', healthy: false });
    expect((await core.get('/api/v1/edges/pools')).data.shared.healthy).to.equal(0);
    await edgeCall('/api/v1/edge/heartbeat', { edge_id: 'edge-1' });
    await core.db.edgeNode.update({ where: { edge_id: 'edge-1' }, data: { last_heartbeat_at: new Date(Date.now() - 31000) } });
    expect((await core.get('/api/v1/edges/pools')).data.shared.healthy).to.equal(0);
  });

  it('marks the config dirty when an edge joins or leaves the pool, not on every heartbeat', async () => {
    const seq = async () => Number((await core.db.publishState.findUnique({ where: { id: 1 } }))?.change_seq ?? 0n);
    await edgeCall('/api/v1/edge/register', { edge_id: 'edge-2', public_ip: '203.0.113.8' }, { edgeId: 'edge-2' });
    const before = await seq();
    await edgeCall('/api/v1/edge/heartbeat', { edge_id: 'edge-2' }, { edgeId: 'edge-2' });
    const joined = await seq();
    expect(joined).to.equal(before + 1);
    await edgeCall('/api/v1/edge/heartbeat', { edge_id: 'edge-2' }, { edgeId: 'edge-2' });
    expect(await seq()).to.equal(joined);
    await edgeCall('/api/v1/edge/heartbeat', { edge_id: 'edge-2', public_ip: '203.0.113.9' }, { edgeId: 'edge-2' });
    expect(await seq()).to.equal(joined + 1);
    await edgeCall('/api/v1/edge/heartbeat', { edge_id: 'edge-2', healthy: false }, { edgeId: 'edge-2' });
    expect(await seq()).to.equal(joined + 2);
  });

  it('keeps what a heartbeat does not report, and replaces what it reports, null included', async () => {
    const full = { edge_id: 'edge-3', hostname: 'edge-3.cdn.example', public_ip: '203.0.113.30', https_port: 8443, region: 'eu-west', country: 'FR', version: '0.2.0', config_version: 4, config_checksum: 'sha256:abc', config_error: 'version 5 refused', labels: ['canary'], version_counters: [{ version: 4, requests: 9, status_5xx: 0, origin_errors: 0 }] };
    const first = await edgeCall('/api/v1/edge/heartbeat', full, { edgeId: 'edge-3' });
    expect(first.status).to.equal(200);
    expect(first.body.data).to.include({ edge_id: 'edge-3', in_pool: true, consecutive_failures: 0, heartbeat_age_seconds: 0 });
    expect(first.body.data).to.deep.include({ labels: ['canary'], version_counters: full.version_counters });
    await core.db.edgeNode.update({ where: { edge_id: 'edge-3' }, data: { consecutive_failures: 2 } });
    const bare = await edgeCall('/api/v1/edge/heartbeat', { edge_id: 'edge-3' }, { edgeId: 'edge-3' });
    expect(bare.body.data).to.include({ hostname: 'edge-3.cdn.example', public_ip: '203.0.113.30', https_port: 8443, region: 'eu-west', country: 'FR', version: '0.2.0', config_version: 4, config_checksum: 'sha256:abc', config_error: 'version 5 refused', consecutive_failures: 0 });
    expect(bare.body.data, 'labels and counters are what the last heartbeat said').to.deep.include({ labels: [], version_counters: [] });
    const cleared = await edgeCall('/api/v1/edge/heartbeat', { edge_id: 'edge-3', config_version: null, config_checksum: null, config_error: null, healthy: false }, { edgeId: 'edge-3' });
    expect(cleared.body.data).to.include({ config_version: null, config_checksum: null, config_error: null, health_status: 'unhealthy', in_pool: false, hostname: 'edge-3.cdn.example' });
    const stored = await core.db.edgeNode.findUniqueOrThrow({ where: { edge_id: 'edge-3' } });
    expect(stored.updated_at.getTime()).to.equal(stored.last_heartbeat_at!.getTime());
  });

  it('answers 50 heartbeats of one new edge sent at once, and keeps one row for it', async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, () => edgeCall('/api/v1/edge/heartbeat', { edge_id: 'edge-4', public_ip: '203.0.113.40' }, { edgeId: 'edge-4' })));
    expect(answers.map((answer) => answer.status)).to.deep.equal(Array(50).fill(200));
    expect(await core.db.edgeNode.count({ where: { edge_id: 'edge-4' } })).to.equal(1);
  });

  it('publishes the anycast addresses instead of edge addresses where configured', async () => {
    await edgeCall('/api/v1/edge/heartbeat', { edge_id: 'edge-1' });
    await core.put('/api/v1/admin/edge-network/anycast', { anycast_ipv4: '198.51.100.1' });
    expect((await core.get('/api/v1/edges/dns')).data.ipv4).to.deep.equal({ source: 'anycast', addresses: ['198.51.100.1'] });
    await core.put('/api/v1/admin/edge-network/anycast', { anycast_ipv4: null });
  });

  const REFUSALS: [string, Options, RegExp][] = [
    ['a missing bearer', { tamper: (headers) => delete headers.authorization }, /missing bearer edge token/],
    ['an unknown token', { token: 'cdnedge_unknown' }, /unknown edge token/],
    ['a missing edge id header', { tamper: (headers) => delete headers['x-cdn-edge-id'] }, /missing x-cdn-edge-id/],
    ['a missing signature', { tamper: (headers) => delete headers['x-cdn-signature'] }, /missing x-cdn-signature/],
    ['a bad signature', { tamper: (headers) => (headers['x-cdn-signature'] = '0'.repeat(64)) }, /bad signature/],
    ['a body changed after signing', { bodyOverride: '{"edge_id":"edge-1","healthy":false}' }, /bad signature/],
    ['a timestamp outside the skew', { now: Math.floor(Date.now() / 1000) - 301 }, /allowed 300 s/],
    ['a malformed nonce', { nonce: 'short' }, /x-cdn-nonce/],
  ];
  for (const [what, options, detail] of REFUSALS) {
    it(`answers 401 to ${what}`, async () => {
      const answer = await edgeCall('/api/v1/edge/heartbeat', { edge_id: 'edge-1' }, options);
      expect(answer.status).to.equal(401);
      expect(answer.body.detail).to.match(detail);
    });
  }

  it('refuses a replayed request (same nonce) with 401', async () => {
    const nonce = 'replay-nonce-0123456789abcdef';
    expect((await edgeCall('/api/v1/edge/heartbeat', { edge_id: 'edge-1' }, { nonce })).status).to.equal(200);
    const replay = await edgeCall('/api/v1/edge/heartbeat', { edge_id: 'edge-1' }, { nonce });
    expect(replay.status).to.equal(401);
    expect(replay.body.detail).to.match(/nonce already used/);
  });

  it('refuses a revoked token and a token bound to another edge', async () => {
    const created = await core.db.edgeToken.findFirstOrThrow({ where: { bootstrap: true } });
    const bound = await createEdgeToken(core.db, 'bound', 'edge-2');
    const wrongEdge = await edgeCall('/api/v1/edge/heartbeat', { edge_id: 'edge-1' }, { token: bound.token, edgeId: 'edge-1' });
    expect(wrongEdge.status).to.equal(401);
    expect(wrongEdge.body.detail).to.match(/bound to edge edge-2/);
    expect((await edgeCall('/api/v1/edge/heartbeat', { edge_id: 'edge-2' }, { token: bound.token, edgeId: 'edge-2' })).status).to.equal(200);
    await revokeEdgeToken(core.db, bound.record.id);
    const revoked = await edgeCall('/api/v1/edge/heartbeat', { edge_id: 'edge-2' }, { token: bound.token, edgeId: 'edge-2' });
    expect(revoked.body.detail).to.match(/revoked/);
    expect(created.token_hash).to.have.length(64);
    expect(JSON.stringify(await core.db.edgeToken.findMany())).to.not.include(bound.token);
  });

  it('records when a token was last used, at most once a minute', async () => {
    const token = await core.db.edgeToken.findFirstOrThrow({ where: { bootstrap: true } });
    const old = new Date(Date.now() - 120000);
    await core.db.edgeToken.update({ where: { id: token.id }, data: { last_used_at: old } });
    await edgeCall('/api/v1/edge/heartbeat', { edge_id: 'edge-1' });
    const first = (await core.db.edgeToken.findUniqueOrThrow({ where: { id: token.id } })).last_used_at!;
    expect(first.getTime()).to.be.greaterThan(old.getTime());
    await edgeCall('/api/v1/edge/heartbeat', { edge_id: 'edge-1' });
    expect((await core.db.edgeToken.findUniqueOrThrow({ where: { id: token.id } })).last_used_at).to.deep.equal(first);
  });

  it('rejects a body whose edge_id differs from the signed header with 422', async () => {
    const answer = await edgeCall('/api/v1/edge/heartbeat', { edge_id: 'someone-else' });
    expect(answer.status).to.equal(422);
    expect(answer.body.field).to.equal('edge_id');
  });

  it('counts heartbeats refused after authentication, not unauthenticated ones, until a good one resets the count', async () => {
    await edgeCall('/api/v1/edge/heartbeat', { edge_id: 'edge-1' });
    const node = async () => (await core.get('/api/v1/edge/nodes')).data.find((item: Json) => item.edge_id === 'edge-1');
    expect((await edgeCall('/api/v1/edge/heartbeat', { edge_id: 'edge-1', config_version: -1 })).status).to.equal(422);
    expect((await edgeCall('/api/v1/edge/heartbeat', { edge_id: 'someone-else' })).status).to.equal(422);
    expect((await edgeCall('/api/v1/edge/heartbeat', { edge_id: 'edge-1' }, { tamper: (headers) => (headers['x-cdn-signature'] = '0'.repeat(64)) })).status).to.equal(401);
    const failing = await node();
    expect(failing).to.include({ consecutive_failures: 2, in_pool: true });
    expect(failing.last_failure).to.match(/^422 validation failed \(edge_id\): edge_id someone-else differs/);
    expect(failing.last_failure_at).to.be.a('number');
    await edgeCall('/api/v1/edge/heartbeat', { edge_id: 'edge-1' });
    expect(await node()).to.include({ consecutive_failures: 0 });
  });

  it('does not accept the operator API token on edge endpoints', async () => {
    const response = await fetch(`${core.url}/api/v1/edge/heartbeat`, { method: 'POST', headers: { authorization: 'Bearer operator', 'content-type': 'application/json' }, body: '{"edge_id":"edge-1"}' });
    expect(response.status).to.equal(401);
  });

  it('prunes nonces whose replay window has passed', async () => {
    const token = await core.db.edgeToken.findFirstOrThrow({ where: { bootstrap: true } });
    await core.db.edgeNonce.create({ data: { token_id: token.id, nonce: 'expired-nonce-0123456789', expires_at: new Date(Date.now() - 1000) } });
    const pruned = await pruneNonces(core.db);
    expect(pruned).to.be.at.least(1);
    expect(await core.db.edgeNonce.count({ where: { nonce: 'expired-nonce-0123456789' } })).to.equal(0);
    expect(await core.db.edgeNonce.count()).to.be.greaterThan(0);
  });
});

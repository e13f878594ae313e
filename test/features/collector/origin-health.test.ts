import { expect } from 'chai';
import { healthOf } from '../../../src/features/collector/origin-health.js';
import { signedHeaders } from '../../../src/shared/signing.js';
import { TestCore, type Json } from '../../support/core.js';

const EDGE_TOKEN = 'cdnedge_origin-health-tests-0123456789';

describe('origin health observations', () => {
  let core: TestCore;
  let origin: Json;
  const now = Math.floor(Date.now() / 1000);
  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN });
    const domain = await core.createDomain('health.example');
    await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true });
    origin = (await core.post(`/api/v1/domains/${domain.id}/origins`, { host: 'origin.health.example', monitored: true }, 201)).data;
  });
  after(async () => {
    await core.stop();
  });

  const push = async (edgeId: string, observations: object[]) => {
    const path = '/api/v1/collector/origin-health';
    const body = JSON.stringify({ observations });
    const headers = signedHeaders({ token: EDGE_TOKEN, edgeId, method: 'POST', pathWithQuery: path, body });
    const response = await fetch(`${core.url}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
    return { status: response.status, body: (await response.json()) as Json };
  };
  const observation = (success: boolean, extra: object = {}) => ({ origin_id: origin.id, source: 'probe', success, latency_ms: 40, timestamp: now - 1, ...extra });
  const changeSeq = async () => Number((await core.db.publishState.findUnique({ where: { id: 1 } }))?.change_seq ?? 0);

  it('classifies health from the share of failures', () => {
    expect(healthOf([true, true])).to.equal('unknown');
    expect(healthOf([true, true, true, true, true, true, true, true, true, true])).to.equal('healthy');
    expect(healthOf([false, true, true, true, true, true, true, true, true])).to.equal('degraded');
    expect(healthOf([false, false, true, true])).to.equal('unhealthy');
  });

  it('turns an origin unhealthy from the edges\u2019 failures and marks the config dirty', async () => {
    const before = await changeSeq();
    const answer = await push('edge-1', [observation(false, { failure_kind: 'timeout' }), observation(false, { failure_kind: 'connect' }), observation(true), { ...observation(true), origin_id: 'unknown-origin' }]);
    expect(answer.body.data).to.deep.include({ accepted: 3, unknown_origins: 1, changed: [{ origin_id: origin.id, health_status: 'unhealthy' }] });
    expect((await core.get(`/api/v1/domains/${origin.domain_id}/origins`)).data[0].health_status).to.equal('unhealthy');
    expect(await changeSeq()).to.equal(before + 1);
    await core.post('/api/v1/config/snapshots/rebuild', undefined);
    const state = await core.db.publishState.findUniqueOrThrow({ where: { id: 1 } });
    const snapshot = JSON.parse(Buffer.from((await core.db.configSnapshot.findUniqueOrThrow({ where: { version: state.active_version! } })).payload).toString());
    expect(snapshot.domains[0].origins[0]).to.include({ id: origin.id, health_status: 'unhealthy' });
    const stored = await core.db.originHealthObservation.findMany({ where: { origin_id: origin.id } });
    expect(stored.map((row) => row.failure_kind).filter(Boolean).sort()).to.deep.equal(['connect', 'timeout']);
  });

  it('brings it back to healthy as successes from other edges come in, without marking dirty when nothing changes', async () => {
    await push('edge-2', Array.from({ length: 10 }, () => observation(true))); // 2 failures in 13
    expect((await core.get(`/api/v1/domains/${origin.domain_id}/origins`)).data[0].health_status).to.equal('degraded');
    await push('edge-2', Array.from({ length: 20 }, () => observation(true))); // 2 in 33
    expect((await core.get(`/api/v1/domains/${origin.domain_id}/origins`)).data[0].health_status).to.equal('healthy');
    const before = await changeSeq();
    await push('edge-2', [observation(true)]);
    expect(await changeSeq()).to.equal(before);
  });

  it('rejects a malformed batch with 422', async () => {
    expect((await push('edge-1', [{ origin_id: origin.id, source: 'guess', success: true, timestamp: now }])).status).to.equal(422);
  });
});

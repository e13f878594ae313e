import { expect } from 'chai';
import { loadConfig } from '../../src/config/load.js';
import { publishOnce } from '../../src/publish/publisher.js';
import { signedHeaders } from '../../src/shared/signing.js';
import { TestCore, type Json } from '../support/core.js';
import { readSnapshotBytes } from '../../src/publish/snapshot-store.js';

const EDGE_TOKEN = 'cdnedge_purge-delivery-tests-0123456789';
const DEFAULTS = {
  cache: { caching_enabled: true, default_edge_ttl_seconds: 3600, browser_ttl_seconds: 14400, respect_origin_cache_control: true, query_string_mode: 'include', stale_while_revalidate_seconds: 0, stale_if_error_seconds: 0, development_mode: false, targeted_cache_control_header: null, strict_rfc9111: false },
  ssl: { mode: 'full', automatic: true, always_https: false, min_tls_version: '1.2', hsts_enabled: false, hsts_max_age: 31536000 },
};

describe('purge delivery through snapshots and heartbeat acknowledgements', () => {
  let core: TestCore;
  let domain: Json;
  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN });
    domain = await core.createDomain('purge.example');
    await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true });
  });
  after(async () => {
    await core.stop();
  });

  const heartbeat = async (edgeId: string, extra: object = {}) => {
    const path = '/api/v1/edge/heartbeat';
    const body = JSON.stringify({ edge_id: edgeId, ...extra });
    const headers = signedHeaders({ token: EDGE_TOKEN, edgeId, method: 'POST', pathWithQuery: path, body });
    const response = await fetch(`${core.url}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
    expect(response.status).to.equal(200);
  };
  const publish = () => publishOnce(core.db, core.core.connection.pool, loadConfig({ DATABASE_URL: core.databaseUrl }), DEFAULTS);
  const purgeStatus = async (id: string) => (await core.get(`/api/v1/domains/${domain.id}/cache/purge-requests/${id}`)).data;

  it('ships a queued purge in the next snapshot and completes it once every pool edge acknowledged it', async () => {
    await heartbeat('edge-a');
    await heartbeat('edge-b');
    const purge = (await core.post(`/api/v1/domains/${domain.id}/cache/purge`, { scope: 'prefix', value: '/img/' }, 201)).data;
    const { version } = await publish();
    const shipped = await purgeStatus(purge.id);
    expect(shipped).to.include({ status: 'in_progress', config_version: version });
    const snapshot = JSON.parse((await readSnapshotBytes(core.db, version!))!.toString());
    expect(snapshot.purges.map((item: Json) => item.id)).to.deep.equal([purge.id]);

    await heartbeat('edge-a', { purge_acks: [purge.id, 'unknown-purge-id'] });
    const half = await purgeStatus(purge.id);
    expect(half.status).to.equal('in_progress');
    expect(half.acknowledged_by.map((ack: Json) => ack.edge_id)).to.deep.equal(['edge-a']);

    await heartbeat('edge-b', { purge_acks: [purge.id] });
    const done = await purgeStatus(purge.id);
    expect(done.status).to.equal('completed');
    expect(done.completed_at).to.be.a('number');

    await core.post(`/api/v1/domains/${domain.id}/cache/purge`, { scope: 'everything' }, 201);
    const next = JSON.parse((await readSnapshotBytes(core.db, (await publish()).version!))!.toString());
    expect(next.purges.map((item: Json) => item.id)).to.not.include(purge.id);
  });

  it('fails a purge an edge reports it could not carry out, and leaves it out of later snapshots', async () => {
    await heartbeat('edge-a');
    await heartbeat('edge-b');
    const purge = (await core.post(`/api/v1/domains/${domain.id}/cache/purge`, { scope: 'prefix', value: '/css/' }, 201)).data;
    await publish();
    await heartbeat('edge-a', { purge_failures: [{ id: purge.id, error: 'cache volume is read-only' }, { id: 'unknown-purge-id', error: 'x' }] });
    expect(await purgeStatus(purge.id)).to.include({ status: 'failed', error: 'edge edge-a: cache volume is read-only' });
    await heartbeat('edge-b', { purge_acks: [purge.id] });
    expect((await purgeStatus(purge.id)).status).to.equal('failed');
    await core.post(`/api/v1/domains/${domain.id}/cache/purge`, { scope: 'everything' }, 201);
    const next = JSON.parse((await readSnapshotBytes(core.db, (await publish()).version!))!.toString());
    expect(next.purges.map((item: Json) => item.id)).to.not.include(purge.id);
  });

  const activePurgeIds = async () => {
    const state = await core.db.publishState.findUniqueOrThrow({ where: { id: 1 } });
    const snapshot = JSON.parse((await readSnapshotBytes(core.db, state.active_version!))!.toString());
    return snapshot.purges.map((item: Json) => item.id);
  };

  it('marks the config dirty when the last acknowledgement completes a purge, so the next snapshot drops it', async () => {
    await heartbeat('edge-a');
    await heartbeat('edge-b');
    const purge = (await core.post(`/api/v1/domains/${domain.id}/cache/purge`, { scope: 'prefix', value: '/js/' }, 201)).data;
    const shipped = await publish();
    expect(await activePurgeIds()).to.include(purge.id);
    await heartbeat('edge-a', { purge_acks: [purge.id] });
    expect(await publish()).to.deep.equal({ outcome: 'up_to_date', version: shipped.version });
    await heartbeat('edge-b', { purge_acks: [purge.id] });
    const state = await core.db.publishState.findUniqueOrThrow({ where: { id: 1 } });
    expect(state.change_seq > state.published_seq, 'dirty after completion').to.equal(true);
    expect(state.dirty_reason).to.equal('purge.completed');
    expect((await publish()).outcome).to.equal('published');
    expect(await activePurgeIds()).to.not.include(purge.id);
  });

  it('marks the config dirty when an edge fails a purge, so the next snapshot drops it', async () => {
    await heartbeat('edge-a');
    const purge = (await core.post(`/api/v1/domains/${domain.id}/cache/purge`, { scope: 'prefix', value: '/fonts/' }, 201)).data;
    await publish();
    expect(await activePurgeIds()).to.include(purge.id);
    await heartbeat('edge-a', { purge_failures: [{ id: purge.id, error: 'disk full' }] });
    expect((await core.db.publishState.findUniqueOrThrow({ where: { id: 1 } })).dirty_reason).to.equal('purge.failed');
    expect((await publish()).outcome).to.equal('published');
    expect(await activePurgeIds()).to.not.include(purge.id);
  });

  it('leaves the config clean when a heartbeat acknowledges a purge that was already settled', async () => {
    await heartbeat('edge-a');
    const purge = (await core.post(`/api/v1/domains/${domain.id}/cache/purge`, { scope: 'prefix', value: '/docs/' }, 201)).data;
    await publish();
    await heartbeat('edge-a', { purge_failures: [{ id: purge.id, error: 'disk full' }] });
    const settled = await publish();
    await heartbeat('edge-b', { purge_acks: [purge.id, 'unknown-purge-id'] });
    expect(await publish()).to.deep.equal({ outcome: 'up_to_date', version: settled.version });
  });

  it('completes a purge that every edge of a large pool acknowledges at the same moment', async () => {
    const edges = Array.from({ length: 12 }, (_, index) => `edge-burst-${index}`);
    for (const edge of ['edge-a', 'edge-b', ...edges]) await heartbeat(edge);
    const purge = (await core.post(`/api/v1/domains/${domain.id}/cache/purge`, { scope: 'prefix', value: '/burst/' }, 201)).data;
    await publish();
    await Promise.all(['edge-a', 'edge-b', ...edges].map((edge) => heartbeat(edge, { purge_acks: [purge.id] })));
    const done = await purgeStatus(purge.id);
    expect(done.acknowledged_by).to.have.length(edges.length + 2);
    expect(done.status).to.equal('completed');
  });

  it('refuses a malformed purge failure report with 422', async () => {
    const path = '/api/v1/edge/heartbeat';
    const body = JSON.stringify({ edge_id: 'edge-a', purge_failures: [{ id: 'x' }] });
    const headers = signedHeaders({ token: EDGE_TOKEN, edgeId: 'edge-a', method: 'POST', pathWithQuery: path, body });
    const response = await fetch(`${core.url}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
    expect(response.status).to.equal(422);
    expect(((await response.json()) as Json).field).to.equal('purge_failures.0.error');
  });
});

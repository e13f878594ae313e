import { expect } from 'chai';
import pino from 'pino';
import { loadConfig } from '../../../src/config/load.js';
import { startHousekeeping } from '../../../src/core/housekeeping.js';
import { inTransaction } from '../../../src/db/transaction.js';
import { ingestOriginHealth } from '../../../src/features/collector/origin-health.js';
import { healthOf, refreshOriginHealth } from '../../../src/features/collector/origin-health-status.js';
import { loadApiSchemas, validatorFor } from '../../../src/http/validation.js';
import { signedHeaders } from '../../../src/shared/signing.js';
import { TestCore, type Json } from '../../support/core.js';
import { eventually } from '../../support/eventually.js';
import { readSnapshotBytes } from '../../../src/publish/snapshot-store.js';

const EDGE_TOKEN = 'cdnedge_origin-health-tests-0123456789';

describe('origin health observations', () => {
  let core: TestCore;
  let origin: Json;
  // Read per test: suites load long before they run, and the health window is only two minutes.
  let now: number;
  beforeEach(() => {
    now = Math.floor(Date.now() / 1000);
  });
  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN });
    const domain = await core.createDomain('health.example');
    await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true });
    origin = (await core.post(`/api/v1/domains/${domain.id}/origins`, { host: 'origin.health.example', monitored: true }, 201)).data;
  });
  after(async () => {
    await core.stop();
  });

  const push = async (edgeId: string, observations: unknown[]) => {
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
    const snapshot = JSON.parse((await readSnapshotBytes(core.db, state.active_version!))!.toString());
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

  it('refuses observations one by one (future beyond the signature skew, absurdly old, absurd values) and stores the rest', async () => {
    const stored = async () => core.db.originHealthObservation.count({ where: { origin_id: origin.id } });
    const before = await stored();
    const answer = await push('edge-3', [
      observation(true, { timestamp: now + 200 }),
      observation(true, { timestamp: now + 3600 }),
      observation(true, { timestamp: 1000000000000000 }),
      observation(true, { timestamp: 1e308 }),
      observation(true, { timestamp: now - 31 * 86400 }),
      observation(true, { latency_ms: -5 }),
      observation(true, { latency_ms: 10 ** 12 }),
      observation(true, { jitter_ms: 1.5 }),
      observation(true, { source: 'guess' }),
      observation(true, { detail: 'nul\u0000byte' }),
      observation(true, { origin_id: 'bad\u0000id' }),
      'not an object',
      observation(true),
    ]);
    expect(answer.status).to.equal(200);
    expect(answer.body.data.accepted).to.equal(2);
    expect(answer.body.data.rejected.map((rejection: Json) => [rejection.index, rejection.field])).to.deep.equal([
      [1, 'timestamp'],
      [2, 'timestamp'],
      [3, 'timestamp'],
      [4, 'timestamp'],
      [5, 'latency_ms'],
      [6, 'latency_ms'],
      [7, 'jitter_ms'],
      [8, 'source'],
      [9, 'detail'],
      [10, 'origin_id'],
      [11, undefined],
    ]);
    expect(answer.body.data.rejected[0].reason).to.match(/more than 300 seconds in the future/);
    expect(answer.body.data.rejected[3].reason).to.match(/older than the analytics retention/);
    expect(await stored()).to.equal(before + 2);
  });

  it('accepts the failure of an origin that answered with a status above 599', async () => {
    const answer = await push('edge-4', [observation(false, { source: 'passive', failure_kind: 'http', http_status: 999 }), observation(false, { failure_kind: 'http', http_status: 1000 })]);
    expect(answer.body.data.accepted).to.equal(1);
    expect(answer.body.data.rejected.map((rejection: Json) => [rejection.index, rejection.field])).to.deep.equal([[1, 'http_status']]);
  });

  it('refuses a batch that is not a list of observations with 422', async () => {
    const path = '/api/v1/collector/origin-health';
    const body = JSON.stringify({ observations: 'everything is fine' });
    const headers = signedHeaders({ token: EDGE_TOKEN, edgeId: 'edge-1', method: 'POST', pathWithQuery: path, body });
    const response = await fetch(`${core.url}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
    expect(response.status).to.equal(422);
    expect(((await response.json()) as Json).field).to.equal('observations');
  });
});

describe('origin health decay on a schedule', () => {
  let core: TestCore;
  let domain: Json;
  const minutes = (count: number) => count * 60 * 1000;
  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN });
    domain = await core.createDomain('decay.example');
    await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true });
  });
  after(async () => {
    await core.stop();
  });

  const push = async (observations: object[]) => {
    const path = '/api/v1/collector/origin-health';
    const body = JSON.stringify({ observations });
    const headers = signedHeaders({ token: EDGE_TOKEN, edgeId: 'edge-1', method: 'POST', pathWithQuery: path, body });
    const response = await fetch(`${core.url}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
    expect(response.status).to.equal(200);
  };
  const failures = (originId: string, count: number) => Array.from({ length: count }, () => ({ origin_id: originId, source: 'passive', success: false, failure_kind: 'connect', timestamp: Math.floor(Date.now() / 1000) - 1 }));
  const healthOfOrigin = async (id: string) => (await core.db.origin.findUniqueOrThrow({ where: { id } })).health_status;
  const snapshotOrigin = async (id: string) => {
    await core.post('/api/v1/config/snapshots/rebuild', undefined);
    const state = await core.db.publishState.findUniqueOrThrow({ where: { id: 1 } });
    const snapshot = JSON.parse((await readSnapshotBytes(core.db, state.active_version!))!.toString());
    return snapshot.domains[0].origins.find((item: Json) => item.id === id);
  };
  const housekeeping = (offsetMs: number) => startHousekeeping(core.core.connection, loadConfig({ DATABASE_URL: core.databaseUrl }), pino({ level: 'silent' }), { intervalMs: 50, now: () => new Date(Date.now() + offsetMs) });

  it('leaves an unhealthy origin alone while its window still holds the failures', async () => {
    const origin = (await core.post(`/api/v1/domains/${domain.id}/origins`, { host: 'steady.decay.example' }, 201)).data;
    await push(failures(origin.id, 3));
    const changed = await refreshOriginHealth(core.core.connection.pool, new Date(Date.now() + minutes(1)));
    expect(changed.map((change) => change.origin_id)).to.not.include(origin.id);
    expect(await healthOfOrigin(origin.id)).to.equal('unhealthy');
  });

  it('decays an unhealthy origin to unknown once no observation is left in its window, marks the config dirty and publishes it', async () => {
    const origin = (await core.post(`/api/v1/domains/${domain.id}/origins`, { host: 'gone-quiet.decay.example' }, 201)).data;
    await push(failures(origin.id, 4));
    expect(await snapshotOrigin(origin.id)).to.include({ health_status: 'unhealthy' });
    const published = await core.db.publishState.findUniqueOrThrow({ where: { id: 1 } });
    const stop = housekeeping(minutes(3));
    try {
      await eventually('the origin decays to unknown', async () => ((await healthOfOrigin(origin.id)) === 'unknown' ? true : undefined), 5000);
    } finally {
      await stop();
    }
    const state = await core.db.publishState.findUniqueOrThrow({ where: { id: 1 } });
    expect(state.change_seq > published.change_seq).to.equal(true);
    expect(state.dirty_reason).to.equal('origin.health');
    expect(await snapshotOrigin(origin.id)).to.include({ health_status: 'unknown' });
    expect(await core.db.originHealthObservation.count({ where: { origin_id: origin.id } }), 'observations are kept for reports').to.equal(4);
  });

  it('never overwrites the health that observations committed while a refresh was deciding', async () => {
    const origin = (await core.post(`/api/v1/domains/${domain.id}/origins`, { host: 'race.decay.example' }, 201)).data;
    const now = new Date();
    const long = new Date(now.getTime() - minutes(10));
    await core.db.originHealthObservation.createMany({ data: Array.from({ length: 3 }, () => ({ origin_id: origin.id, domain_id: domain.id, edge_id: 'edge-1', source: 'probe', success: false, observed_at: long })) });
    await core.db.origin.update({ where: { id: origin.id }, data: { health_status: 'unhealthy' } });
    const bounds = { validate: validatorFor(loadApiSchemas(), 'origin-health-observation'), maxSkewSeconds: 300, retentionDays: 30, now };
    let ingested!: () => void;
    let commit!: () => void;
    const ingestedNow = new Promise<void>((resolve) => (ingested = resolve));
    const committing = new Promise<void>((resolve) => (commit = resolve));
    const ingest = inTransaction(core.core.connection.pool, async (client) => {
      await ingestOriginHealth(client, failures(origin.id, 3), 'edge-1', bounds);
      ingested();
      await committing;
    });
    await ingestedNow;
    const refresh = refreshOriginHealth(core.core.connection.pool, now); // reads the emptied window, then waits for the origin's lock
    await new Promise((resolve) => setTimeout(resolve, 300));
    commit();
    await ingest;
    expect((await refresh).map((change) => change.origin_id)).to.not.include(origin.id);
    expect(await healthOfOrigin(origin.id)).to.equal('unhealthy');
  });

  it('does not mark the config dirty when no origin health changes', async () => {
    await refreshOriginHealth(core.core.connection.pool, new Date(Date.now() + minutes(3)));
    const before = await core.db.publishState.findUniqueOrThrow({ where: { id: 1 } });
    expect(await refreshOriginHealth(core.core.connection.pool, new Date(Date.now() + minutes(4)))).to.deep.equal([]);
    expect((await core.db.publishState.findUniqueOrThrow({ where: { id: 1 } })).change_seq).to.equal(before.change_seq);
  });
});

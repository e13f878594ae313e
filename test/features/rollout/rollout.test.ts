import { expect } from 'chai';
import { heartbeat } from '../../../src/features/edges/service.js';
import { TestCore } from '../../support/core.js';

const FRESH = 30;
const MINUTE = 60_000;

// GET /api/v1/config/rollout against a real core and database; snapshots are stored rows, heartbeats go through the service.
describe('GET /api/v1/config/rollout', () => {
  let core: TestCore;
  let created: Date;

  before(async () => {
    core = await TestCore.start({ CDN_EDGE_HEARTBEAT_FRESH_SECONDS: String(FRESH) });
  });
  after(async () => {
    await core.stop();
  });
  beforeEach(async () => {
    await core.db.edgeNode.deleteMany();
    await core.db.gitopsRun.deleteMany();
    await core.db.configSnapshot.deleteMany();
    created = new Date(Date.now() - 10_000);
    const row = (version: number, seq: number | null) => ({ version, checksum: `sum${version}`, size_bytes: 2, payload: Buffer.from('{}'), published_seq: seq === null ? null : BigInt(seq), created_at: created });
    await core.db.configSnapshot.createMany({ data: [row(1, 1), row(2, 3)] });
    await core.db.publishState.upsert({ where: { id: 1 }, create: { id: 1, active_version: 2, change_seq: 3n, published_seq: 3n }, update: { active_version: 2, change_seq: 3n, published_seq: 3n, last_error: null } });
  });

  const beat = (edgeId: string, report: Record<string, unknown>, at = new Date()) => heartbeat(core.db, { edge_id: edgeId, ...report }, edgeId, 'token', FRESH, at);
  const rollout = async (query = '') => (await core.get(`/api/v1/config/rollout${query}`)).data;

  it('counts the pool edges serving the latest version and names each laggard with why', async () => {
    await beat('serving', { config_version: 2, config_checksum: 'sum2' });
    await beat('refusing', { config_version: 1, config_error: 'version 2: snapshot exceeds CDN_EDGE_CONFIG_MAX_BYTES' });
    await beat('behind', { config_version: 1 });
    await beat('silent', { config_version: 2 }, new Date(Date.now() - 10 * MINUTE));
    await beat('gone', { config_version: 1 }, new Date(Date.now() - 120 * MINUTE));
    await beat('disabled', { config_version: 1 });
    await core.db.edgeNode.update({ where: { edge_id: 'disabled' }, data: { enabled: false } });

    const answer = await rollout();
    expect(answer).to.include({ status: 'rolling_out', version: 2, checksum: 'sum2', pool_edges: 4, serving: 1, summary: '1 of 4 pool edges serve version 2' });
    expect(answer.laggards.map(({ edge_id, active_version, reason, error }: Record<string, unknown>) => ({ edge_id, active_version, reason, error }))).to.deep.equal([
      { edge_id: 'behind', active_version: 1, reason: 'behind', error: null },
      { edge_id: 'refusing', active_version: 1, reason: 'reload_failed', error: 'version 2: snapshot exceeds CDN_EDGE_CONFIG_MAX_BYTES' },
      { edge_id: 'silent', active_version: 2, reason: 'unreachable', error: null },
    ]);
  });

  it('gives each edge the seconds from the version’s creation to its first heartbeat reporting it', async () => {
    await beat('edge-1', { config_version: 1 }, new Date(created.getTime() + 500));
    await beat('edge-1', { config_version: 2 }, new Date(created.getTime() + 2500));
    await beat('edge-1', { config_version: 2 });
    const answer = await rollout('?version=2');
    expect(answer).to.include({ status: 'converged', serving: 1, pool_edges: 1 });
    expect(answer.edges).to.deep.equal([{ edge_id: 'edge-1', active_version: 2, serving: true, took_seconds: 2.5 }]);
    expect((await rollout('?version=1')).edges[0]).to.include({ serving: true, took_seconds: 0.5 });
  });

  it('resolves a write’s change to the first version covering it, and says pending (with the publish error) before one does', async () => {
    await beat('edge-1', { config_version: 1 });
    expect(await rollout('?change=1')).to.include({ version: 1, status: 'converged', change: '1' });
    expect(await rollout('?change=2')).to.include({ version: 2, status: 'rolling_out' });
    await core.db.publishState.update({ where: { id: 1 }, data: { change_seq: 4n, last_error: 'snapshot too large' } });
    expect(await rollout('?change=4')).to.include({ status: 'pending', version: null, serving: 0, pool_edges: 1, publish_error: 'snapshot too large', summary: 'not published yet: snapshot too large' });
  });

  it('answers a GitOps run with the version publishing its last write and names its commit', async () => {
    await beat('edge-1', { config_version: 2 });
    const run = await core.db.gitopsRun.create({ data: { repo: 'git.example/desired', commit_sha: 'abcdef0123456789', trigger: 'manual', status: 'applied', started_at: new Date(), config_change: 2n } });
    const quiet = await core.db.gitopsRun.create({ data: { repo: 'git.example/desired', commit_sha: 'fedcba', trigger: 'manual', status: 'no_changes', started_at: new Date() } });
    expect(await rollout(`?run=${run.id}`)).to.include({ version: 2, commit: 'abcdef0123456789', summary: '1 of 1 pool edges serve version 2 (commit abcdef012345)' });
    expect(await rollout(`?run=${quiet.id}`)).to.include({ version: 2, change: null });
    expect((await core.get('/api/v1/gitops/runs')).data.find((item: { id: string }) => item.id === String(run.id)).config_change).to.equal('2');
  });

  it('is converged with no pool edges at all', async () => {
    expect(await rollout()).to.include({ status: 'converged', pool_edges: 0, serving: 0, summary: '0 of 0 pool edges serve version 2' });
  });

  it('refuses bad query values with 422 and unknown versions and runs with 404, never 500', async () => {
    for (const query of ['version=%00', 'version=1%002', 'version=-1', 'version=0', 'version=2147483648', 'version=99999999999999999999', 'version=1e3', 'change=abc', 'change=-5', 'change=9999999999999999999', 'run=0x10', 'run=', 'version=1&change=1', 'version=1&version=2']) {
      const answer = await core.get(`/api/v1/config/rollout?${query}`, 422);
      expect(answer.error, query).to.be.a('string');
    }
    await core.get('/api/v1/config/rollout?version=99', 404);
    await core.get('/api/v1/config/rollout?run=999999', 404);
  });

  it('names the change_seq of a publishing write in X-CDN-Config-Change, for single writes and batches', async () => {
    const single = await fetch(`${core.url}/api/v1/domains`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ domain: 'change-header.example' }) });
    expect(single.status).to.equal(201);
    const state = await core.db.publishState.findUniqueOrThrow({ where: { id: 1 } });
    expect(single.headers.get('x-cdn-config-change')).to.equal(String(state.change_seq));
    const batch = await fetch(`${core.url}/api/v1/batch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ operations: [{ method: 'POST', path: '/api/v1/domains', body: { domain: 'batch-header.example' } }] }) });
    expect(batch.status).to.equal(200);
    expect(batch.headers.get('x-cdn-config-change')).to.equal(String(state.change_seq + 1n));
    const read = await fetch(`${core.url}/api/v1/domains`);
    expect(read.headers.get('x-cdn-config-change')).to.equal(null);
  });
});

import { expect } from 'chai';
import { heartbeat } from '../../../src/features/edges/service.js';
import { evaluateCanaryRollout } from '../../../src/features/rollout/canary-loop.js';
import { signedHeaders } from '../../../src/shared/signing.js';
import { TestCore, type Json } from '../../support/core.js';
import { eventually } from '../../support/eventually.js';

const EDGE_TOKEN = 'cdnedge_canary-api-token-0123456789ab';
const FRESH = 30;

// The canary rollout against a real core and database: settings through the API, heartbeats through
// the service, the loop's evaluation called directly (the background one is off with the publisher),
// and the signed config pull as each edge makes it.
describe('canary rollout: settings, served versions, verdicts, promote and abort', () => {
  let core: TestCore;
  let domainId: string;
  let ruleCount = 0;

  const evaluate = () => evaluateCanaryRollout(core.db, core.core.connection.pool, FRESH);
  const pull = async (edgeId: string, query = '') => {
    const path = `/api/v1/edge/config${query}`;
    const response = await fetch(`${core.url}${path}`, { headers: signedHeaders({ token: EDGE_TOKEN, edgeId, method: 'GET', pathWithQuery: path }) });
    expect(response.status).to.equal(200);
    return ((await response.json()) as Json).data;
  };
  // A change edges see, published at once as a new version.
  const publishChange = async (): Promise<number> => {
    await core.post(`/api/v1/domains/${domainId}/waf-rules`, { name: `rule-${++ruleCount}`, match: { paths: [{ kind: 'prefix', value: `/r${ruleCount}` }] }, action: 'block' }, 201);
    return (await core.post('/api/v1/config/snapshots/rebuild', undefined)).data.version;
  };
  // Each core learns of a version change from its listener, a moment after the commit.
  const servedTo = (edgeId: string, query = '') => ({ equals: (version: number) => eventually(`${edgeId} served ${version}`, async () => ((await pull(edgeId, query)).version === version ? true : undefined), 5000) });
  const beat = (edgeId: string, labels: string[], counters: Json[] = []) => heartbeat(core.db, { edge_id: edgeId, labels, version_counters: counters }, edgeId, 'token', FRESH);
  const counters = (version: number, requests: number, status5xx: number) => ({ version, requests, status_5xx: status5xx, origin_errors: status5xx });
  const rollout = async (query = '') => (await core.get(`/api/v1/config/rollout${query}`)).data;

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN, CDN_EDGE_HEARTBEAT_FRESH_SECONDS: String(FRESH) });
    const domain = await core.createDomain('canary-api.example');
    domainId = domain.id;
    await core.post(`/api/v1/domains/${domainId}/activate`, { override: true });
    await publishChange();
    await beat('edge-canary', ['canary']);
    await beat('edge-fleet', []);
  });
  after(async () => {
    await core.stop();
  });

  it('rejects a rollout setting out of its bounds, or a malformed label, with 422 naming the field', async () => {
    expect((await core.patch('/api/v1/settings/rollout', { canary_percent: 101 }, 422)).field).to.equal('rollout.canary_percent');
    expect((await core.patch('/api/v1/settings/rollout', { bake_seconds: 5 }, 422)).field).to.equal('rollout.bake_seconds');
    expect((await core.patch('/api/v1/settings/rollout', { canary_labels: ['Has Space'] }, 422)).field).to.equal('rollout.canary_labels');
    expect((await core.get('/api/v1/settings/rollout')).data).to.deep.equal({ enabled: false, canary_labels: [], canary_percent: 0, bake_seconds: 300, max_error_margin_percent: 1, min_canary_requests: 100 });
  });

  it('with rollout off, serves every edge the newest version and keeps no fleet version', async () => {
    const version = await publishChange();
    expect(await evaluate()).to.deep.equal({ action: 'off' });
    await servedTo('edge-fleet').equals(version);
    await servedTo('edge-canary').equals(version);
    expect((await rollout()).canary_rollout).to.include({ enabled: false, fleet_version: null, canary_version: null });
  });

  it('answers 409 to promote and abort while no version bakes or failed', async () => {
    expect((await core.post('/api/v1/config/rollout/promote', undefined, 409)).field).to.equal('version');
    await core.post('/api/v1/config/rollout/abort', undefined, 409);
  });

  it('bakes a new version on the canaries only, fails it on their 5xx ratio and sends them back, and holds later versions', async () => {
    await core.patch('/api/v1/settings/rollout', { enabled: true, canary_labels: ['canary'], bake_seconds: 3600, min_canary_requests: 10 });
    const fleet = (await evaluate())!.version!;
    expect((await core.db.publishState.findUniqueOrThrow({ where: { id: 1 } })).fleet_version).to.equal(fleet);

    const candidate = await publishChange();
    expect(await evaluate()).to.deep.include({ action: 'started', version: candidate });
    await servedTo('edge-canary', `?since=${fleet}`).equals(candidate);
    expect(await pull('edge-fleet', `?if_version=${fleet}`)).to.deep.equal({ version: fleet, checksum: (await pull('edge-fleet')).checksum, not_modified: true });

    await beat('edge-canary', ['canary'], [counters(candidate, 40, 40)]);
    await beat('edge-fleet', [], [counters(fleet, 100, 0)]);
    const failed = await evaluate();
    expect(failed).to.deep.include({ action: 'failed', version: candidate });
    await servedTo('edge-canary', `?since=${candidate}`).equals(fleet);

    const answer = await rollout(`?version=${candidate}`);
    expect(answer.status).to.equal('rolled_back');
    expect(answer.summary).to.equal(`version ${candidate} failed on canaries edge-canary and was rolled back to version ${fleet}: canary 5xx ratio 100.00% (40 of 40 requests, 40 origin errors) against 0.00% on version ${fleet} (0 of 100), margin 1 points: above 1.00%`);
    expect(answer.canary.numbers.canary).to.include({ requests: 40, status_5xx: 40, origin_errors: 40 });
    const warning = (await core.get('/api/v1/overview/warnings')).data.warnings.find((item: Json) => item.code === 'rollout_failed');
    expect(warning).to.include({ severity: 'critical' });
    expect(warning.detail).to.include({ version: candidate, baseline_version: fleet });

    const later = await publishChange();
    expect(await evaluate()).to.deep.include({ action: 'held', version: candidate });
    await servedTo('edge-canary').equals(fleet);
    await servedTo('edge-fleet').equals(fleet);

    const aborted = (await core.post('/api/v1/config/rollout/abort', undefined)).data;
    expect(aborted).to.include({ version: candidate, state: 'aborted', decided_by: 'anonymous' });
    const [event] = (await core.get('/api/v1/audit?action=rollout.abort&limit=1')).data;
    expect(event).to.include({ action: 'rollout.abort', target_type: 'config_snapshot', target_id: String(candidate) });
    expect(await evaluate()).to.deep.include({ action: 'started', version: later });
    expect((await core.get('/api/v1/overview/warnings')).data.warnings.map((item: Json) => item.code)).to.not.include('rollout_failed');
  });

  it('promotes the baking version by API (audited), waking a fleet edge held on the fleet version', async () => {
    const { fleet_version: fleet, canary_version: baking } = await core.db.publishState.findUniqueOrThrow({ where: { id: 1 } });
    expect(baking).to.be.a('number');
    const started = Date.now();
    let answeredAt = 0;
    const held = pull('edge-fleet', `?since=${fleet}&wait=20`).then((answer) => ((answeredAt = Date.now()), answer));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const promotedAt = Date.now();
    expect((await core.post('/api/v1/config/rollout/promote', undefined)).data).to.include({ version: baking, state: 'promoted' });
    expect((await held).version).to.equal(baking);
    expect(answeredAt, 'the fleet edge was held until the promotion').to.be.at.least(promotedAt);
    expect(Date.now() - started).to.be.below(5000);
    const [event] = (await core.get('/api/v1/audit?action=rollout.promote&limit=1')).data;
    expect(event).to.include({ target_id: String(baking) });
  });

  it('promotes by itself once the canaries baked with a ratio within the margin', async () => {
    await core.patch('/api/v1/settings/rollout', { bake_seconds: 10 });
    const fleet = (await core.db.publishState.findUniqueOrThrow({ where: { id: 1 } })).fleet_version!;
    const candidate = await publishChange();
    expect(await evaluate()).to.deep.include({ action: 'started', version: candidate });
    await core.db.configCanary.update({ where: { version: candidate }, data: { started_at: new Date(Date.now() - 11_000) } });
    await beat('edge-canary', ['canary'], [counters(candidate, 100, 1)]);
    await beat('edge-fleet', [], [counters(fleet, 100, 1)]);
    expect(await evaluate()).to.deep.include({ action: 'promoted', version: candidate });
    await servedTo('edge-fleet').equals(candidate);
  });

  it('serves every edge the newest version again once rollout is turned off', async () => {
    const candidate = await publishChange();
    expect(await evaluate()).to.deep.include({ action: 'started', version: candidate });
    const newest = await publishChange();
    await core.patch('/api/v1/settings/rollout', { enabled: false });
    expect(await evaluate()).to.deep.equal({ action: 'disabled' });
    await servedTo('edge-fleet').equals(newest);
    expect((await core.db.configCanary.findUniqueOrThrow({ where: { version: candidate } })).state).to.equal('aborted');
  });
});

import { expect } from 'chai';
import { runCdn } from '../../support/cdn-cli.js';
import { freePort } from '../../support/cluster.js';
import { TestCore, type Json } from '../../support/core.js';
import { EdgeProcess } from '../../support/edge-process.js';
import { createSite, TestOrigin } from '../../support/edge-site.js';
import { eventually } from '../../support/eventually.js';

const TOKEN = 'cdnedge_e2e-canary-token-0123456789abcdef';
const HOST = 'canary.example';

// A real core (publisher and canary loop on) and three real `cdn edge` processes on loopback, one
// labelled canary. A version that sends the domain's traffic to a dead origin bakes on the canary,
// which is driven with traffic; it fails there and is rolled back, and the other edges never serve it.
describe('canary rollout across real edges', function () {
  this.timeout(120000);
  let core: TestCore;
  let origin: TestOrigin;
  let site: Json;
  const edges: Record<string, EdgeProcess> = {};
  // Every config version each non-canary edge reported on /ready while the test ran.
  const seenByFleet = new Set<number>();
  let watching: NodeJS.Timeout | undefined;

  const rollout = async (query = '') => (await core.get(`/api/v1/config/rollout${query}`)).data;
  const readyVersion = async (edge: EdgeProcess): Promise<number | undefined> => {
    const response = await fetch(`${edge.url}/ready`).catch(() => undefined);
    return response?.ok ? ((await response.json()) as Json).config.version : undefined;
  };
  const serving = (edge: EdgeProcess, version: number) => eventually(`${version} served`, async () => ((await readyVersion(edge)) === version ? true : undefined));

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN, CDN_PUBLISH_ENABLED: 'true', CDN_EDGE_HEARTBEAT_FRESH_SECONDS: '5' });
    origin = await TestOrigin.start('canary');
    site = await createSite(core, HOST, origin.port);
    edges.canary = await EdgeProcess.start({ coreUrl: core.url, token: TOKEN, edgeId: 'edge-canary', workers: 1, env: { CDN_EDGE_LABELS: 'canary' } });
    for (const id of ['edge-b', 'edge-c']) edges[id] = await EdgeProcess.start({ coreUrl: core.url, token: TOKEN, edgeId: id, workers: 1 });
  });
  after(async () => {
    clearInterval(watching);
    for (const edge of Object.values(edges)) await edge.stop();
    await origin?.stop();
    await core?.stop();
  });

  it('rolls a version sending traffic to a broken origin back from the canary automatically, while the other edges never serve it', async () => {
    const start = await eventually('converged', async () => ((await rollout()).status === 'converged' && (await rollout()).pool_edges === 3 ? rollout() : undefined));
    expect((await edges.canary.request(HOST, '/before')).status).to.equal(200);
    await core.patch('/api/v1/settings/rollout', { enabled: true, canary_labels: ['canary'], bake_seconds: 600, min_canary_requests: 20, max_error_margin_percent: 1 });
    const fleet = await eventually('fleet version set', async () => (await rollout()).canary_rollout.fleet_version ?? undefined);
    expect(fleet).to.be.at.least(start.version);
    watching = setInterval(() => {
      for (const id of ['edge-b', 'edge-c']) void readyVersion(edges[id]).then((version) => version !== undefined && seenByFleet.add(version));
    }, 50);
    // The fleet's baseline: good traffic on a non-canary edge.
    for (let i = 0; i < 20; i++) expect((await edges['edge-b'].request(HOST, `/fleet-${i}`)).status).to.equal(200);

    const deadPort = await freePort();
    await core.patch(`/api/v1/domains/${site.id}/origins/${(await core.get(`/api/v1/domains/${site.id}/origins`)).data[0].id}`, { port: deadPort });
    const broken = await eventually('canary version baking', async () => (await rollout()).canary_rollout.canary_version ?? undefined);
    await serving(edges.canary, broken);
    expect((await edges.canary.request(HOST, '/broken')).status).to.be.within(500, 599);

    // Traffic at the canary: every answer is a 5xx from the dead origin, until the canary is back on the fleet version.
    let statuses: number[] = [];
    const rolledBack = await eventually('rolled back', async () => {
      for (let i = 0; i < 10; i++) statuses.push((await edges.canary.request(HOST, `/canary-${statuses.length}`)).status);
      const answer = await rollout(`?version=${broken}`);
      return answer.status === 'rolled_back' ? answer : undefined;
    });
    expect(statuses.filter((status) => status >= 500).length).to.be.at.least(20);
    expect(rolledBack.canary).to.include({ state: 'failed', baseline_version: fleet, decided_by: null });
    expect(rolledBack.canary.canary_edges).to.deep.equal(['edge-canary']);
    expect(rolledBack.canary.numbers.canary.requests).to.be.at.least(20);
    expect(rolledBack.canary.numbers.canary.error_ratio).to.be.above(0.5);
    expect(rolledBack.canary.numbers.canary.origin_errors).to.be.at.least(20);
    expect(rolledBack.summary).to.match(new RegExp(`^version ${broken} failed on canaries edge-canary and was rolled back to version ${fleet}: canary 5xx ratio`));

    await serving(edges.canary, fleet);
    statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await edges.canary.request(HOST, `/after-${i}`)).status);
    expect(statuses).to.deep.equal([200, 200, 200, 200, 200]);
    const warnings = (await core.get('/api/v1/overview/warnings')).data.warnings;
    expect(warnings.find((warning: Json) => warning.code === 'rollout_failed').detail).to.include({ version: broken, baseline_version: fleet });

    // Later versions wait while the failed one holds them, until an operator aborts it.
    const status = await runCdn(['rollout', 'status', '--url', core.url], { CDN_LOG_LEVEL: 'silent' });
    expect(status.code, status.stderr).to.equal(0);
    expect(status.stdout).to.include(`held: version ${broken} failed`);
    const aborted = await runCdn(['rollout', 'abort', '--url', core.url], { CDN_LOG_LEVEL: 'silent' });
    expect(aborted.code, aborted.stderr).to.equal(0);
    expect(aborted.stdout).to.include(`version ${broken} aborted`);

    clearInterval(watching);
    expect([...seenByFleet].filter((version) => version >= broken)).to.deep.equal([]);
    expect(seenByFleet.has(fleet)).to.equal(true);
  });
});

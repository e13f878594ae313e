import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { runCdn } from '../../support/cdn-cli.js';
import { TestCore, type Json } from '../../support/core.js';
import { EdgeProcess } from '../../support/edge-process.js';
import { createSite, TestOrigin } from '../../support/edge-site.js';
import { eventually } from '../../support/eventually.js';
import { GitopsRepo } from '../../support/gitops-repo.js';

const TOKEN = 'cdnedge_e2e-rollout-token-0123456789abcdef';
const FRESH_SECONDS = 3;
const domainFile = (text: string) => `domain: git-rollout.example\nrecords:\n  - { type: A, name: "@", content: 192.0.2.10 }\n  - { type: TXT, name: "@", content: ${text} }\n`;

// One real core with its background publisher and two real `cdn edge` processes on loopback.
describe('config rollout across real edges', function () {
  this.timeout(120000);
  let core: TestCore;
  let origin: TestOrigin;
  let site: Json;
  const edges: Record<string, EdgeProcess> = {};
  let repo: GitopsRepo;
  let dataDir: string;

  const rollout = async (query = '') => (await core.get(`/api/v1/config/rollout${query}`)).data;
  const converged = (query: string) => eventually(`rollout ${query} converged`, async () => ((await rollout(query)).status === 'converged' ? rollout(query) : undefined));
  // A write through the API that changes what edges serve; returns its X-CDN-Config-Change.
  const write = async (name: string): Promise<string> => {
    const response = await fetch(`${core.url}/api/v1/domains/${site.id}/waf-rules`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, match: { paths: [{ kind: 'prefix', value: `/${name}` }] }, action: 'block' }) });
    expect(response.status).to.equal(201);
    const change = response.headers.get('x-cdn-config-change');
    expect(change).to.match(/^\d+$/);
    return change!;
  };
  const cdn = (args: string[]) => runCdn([...args, '--url', core.url], { CDN_DATA_DIR: dataDir, CDN_LOG_LEVEL: 'silent' });

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN, CDN_PUBLISH_ENABLED: 'true', CDN_EDGE_HEARTBEAT_FRESH_SECONDS: String(FRESH_SECONDS) });
    origin = await TestOrigin.start('rollout');
    site = await createSite(core, 'rollout.example', origin.port);
    for (const id of ['edge-a', 'edge-b']) edges[id] = await EdgeProcess.start({ coreUrl: core.url, token: TOKEN, edgeId: id, workers: 1 });
    repo = await GitopsRepo.create({ 'domains/git-rollout.example.yaml': domainFile('first') });
    dataDir = await mkdtemp(path.join(tmpdir(), 'cdn-rollout-cli-'));
  });
  after(async () => {
    for (const edge of Object.values(edges)) await edge.stop();
    // edge-b restarted on the data folder of its first start, which it does not own.
    if (edges['edge-b']) await rm(edges['edge-b'].dataDir, { recursive: true, force: true });
    await origin?.stop();
    await core?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('counts both pool edges serving the version that publishes an API write, with the time each took', async () => {
    const change = await write('first');
    const answer = await converged(`?change=${change}`);
    expect(answer).to.include({ pool_edges: 2, serving: 2, change });
    expect(answer.laggards).to.deep.equal([]);
    expect(answer.summary).to.equal(`2 of 2 pool edges serve version ${answer.version}`);
    for (const edge of answer.edges) expect(edge.took_seconds, edge.edge_id).to.be.a('number').within(0, 30);
    expect((await rollout(`?version=${answer.version}`)).version).to.equal(answer.version);
  });

  it('names a stopped edge as an unreachable laggard, and counts it again once restarted', async () => {
    const before = (await rollout()).version;
    await edges['edge-b'].stop({ keepData: true });
    const change = await write('second');
    const lagging = await eventually('edge-b unreachable', async () => {
      const answer = await rollout(`?change=${change}`);
      return answer.version > before && answer.serving === 1 && answer.laggards[0]?.reason === 'unreachable' ? answer : undefined;
    });
    expect(lagging).to.include({ status: 'rolling_out', pool_edges: 2, serving: 1 });
    expect(lagging.laggards).to.have.length(1);
    expect(lagging.laggards[0]).to.include({ edge_id: 'edge-b', active_version: before, reason: 'unreachable' });

    const timedOut = await cdn(['apply', path.join(repo.dir, 'work'), '--wait=2']);
    expect(timedOut.code, timedOut.stderr).to.equal(5);
    expect(timedOut.stderr).to.match(/timed out after 2s: 1 of 2 pool edges serve version \d+/);
    expect(timedOut.stderr).to.include('edge-b (unreachable');

    edges['edge-b'] = await EdgeProcess.start({ coreUrl: core.url, token: TOKEN, edgeId: 'edge-b', workers: 1, dataDir: edges['edge-b'].dataDir });
    const back = await converged(`?change=${change}`);
    expect(back).to.include({ pool_edges: 2, serving: 2 });
  });

  it('cdn apply --wait and cdn reconcile --once --wait exit 0 once every pool edge serves the result, and the run has its rollout', async () => {
    const sha = await repo.commit('second text', { 'domains/git-rollout.example.yaml': domainFile('second') });
    const reconciled = await cdn(['reconcile', '--repo', repo.url, '--once', '--wait=60']);
    expect(reconciled.code, reconciled.stderr).to.equal(0);
    expect(reconciled.stderr).to.match(/rollout: 2 of 2 pool edges serve version \d+/);
    const report = JSON.parse(reconciled.stdout);
    expect(report.config_change).to.match(/^\d+$/);
    const run = (await core.get('/api/v1/gitops/runs')).data.find((item: Json) => item.commit_sha === sha);
    expect(run.config_change).to.equal(report.config_change);
    const perRun = await rollout(`?run=${run.id}`);
    expect(perRun).to.include({ status: 'converged', pool_edges: 2, serving: 2, commit: sha, change: report.config_change });
    expect(perRun.summary).to.equal(`2 of 2 pool edges serve version ${perRun.version} (commit ${sha.slice(0, 12)})`);

    const applied = await cdn(['apply', path.join(repo.dir, 'work'), '--wait']);
    expect(applied.code, applied.stderr).to.equal(0);
  });
});

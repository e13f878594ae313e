import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { TestCore, type Json } from '../../support/core.js';
import { eventually } from '../../support/eventually.js';
import { GitopsRepo } from '../../support/gitops-repo.js';

const DOMAIN = (ttl: number) => `domain: now.example
records:
  - { type: A, name: www, content: 192.0.2.10, ttl: ${ttl} }
origins:
  - { host: origin.now.example }
`;

// "Reconcile now" (POST /api/v1/gitops/reconcile) against the core's own controller, which
// follows a real git repository with an interval of an hour and no webhook: only the request wakes it.
describe('GitOps: reconcile now', function () {
  this.timeout(60000);
  let repo: GitopsRepo;
  let data: string;
  let core: TestCore;

  const runs = async (): Promise<Json[]> => (await core.get('/api/v1/gitops/runs?limit=100')).data;
  const requestedRun = (after: string, what: string) => eventually(what, async () => (await runs()).find((run) => run.trigger === 'request' && Number(run.id) > Number(after)));
  const newestRunId = async () => (await runs())[0]?.id ?? '0';
  const domain = async () => (await core.get('/api/v1/domains?q=now.example')).data[0];

  before(async () => {
    repo = await GitopsRepo.create({ 'domains/now.example.yaml': DOMAIN(300) });
    data = await mkdtemp(path.join(tmpdir(), 'cdn-reconcile-now-'));
    core = await TestCore.start({ CDN_GITOPS_REPO: repo.url, CDN_GITOPS_BRANCH: 'main', CDN_GITOPS_INTERVAL_SECONDS: '3600', CDN_DATA_DIR: data });
    await eventually('the first run', async () => (await runs()).find((run) => run.trigger === 'start' && run.status === 'applied'));
  });
  after(async () => {
    await core?.stop();
    await repo?.remove();
    await rm(data, { recursive: true, force: true });
  });

  it('says in the status that this core runs the repository\'s controller', async () => {
    const [status] = (await core.get('/api/v1/gitops/status')).data.repos;
    expect(status).to.include({ repo: repo.url, in_core: true });
  });

  it('applies a commit pushed without any webhook at once, as a requested run', async () => {
    const sha = await repo.commit('longer ttl', { 'domains/now.example.yaml': DOMAIN(900) });
    const before = await newestRunId();
    const answer = await core.post('/api/v1/gitops/reconcile', { repo: repo.url }, 202);
    expect(answer.data).to.deep.equal({ repo: repo.url, requested: true });
    const run = await requestedRun(before, 'the requested run');
    expect(run).to.include({ commit_sha: sha, status: 'applied' });
    const records = (await core.get(`/api/v1/domains/${(await domain()).id}/dns/records`)).data;
    expect(records[0].ttl).to.equal(900);
  });

  it('records the run it asked for even when nothing changed, so the answer can be seen', async () => {
    const before = await newestRunId();
    await core.post('/api/v1/gitops/reconcile', { repo: repo.url }, 202);
    expect(await requestedRun(before, 'a second requested run')).to.include({ status: 'no_changes', commit_sha: repo.shas.at(-1) });
  });

  it('reports an API change to a git-owned item as drift, each field with its git and live value', async () => {
    const owned = await domain();
    const [origin] = (await core.get(`/api/v1/domains/${owned.id}/origins`)).data;
    await core.patch(`/api/v1/domains/${owned.id}/origins/${origin.id}`, { weight: 7, max_retries: 3 });
    const before = await newestRunId();
    await core.post('/api/v1/gitops/reconcile', { repo: repo.url }, 202);
    const run = await requestedRun(before, 'the run that finds the drift');
    expect(run.drift).to.deep.equal([
      {
        domain: 'now.example',
        resource: 'origin',
        key: 'https://origin.now.example:443',
        action: 'update',
        fields: [
          { field: 'weight', before: 7, after: 100 },
          { field: 'max_retries', before: 3, after: 1 },
        ],
      },
    ]);
    expect((await core.get('/api/v1/gitops/status')).data.repos[0]).to.include({ state: 'drifted' });
  });

  it('is audited with who asked and for which repository', async () => {
    const [event] = (await core.get('/api/v1/audit?action=gitops.reconcile&limit=1')).data;
    expect(event).to.include({ action: 'gitops.reconcile', target_type: 'gitops_repo', target_id: repo.url, actor: 'anonymous' });
  });

  it('refuses a repository this core does not follow with 409, and a body without repo with 422', async () => {
    const before = await core.db.auditEvent.count();
    const refused = await core.post('/api/v1/gitops/reconcile', { repo: 'https://git.example/elsewhere.git' }, 409);
    expect(refused).to.include({ field: 'repo' });
    expect(refused.detail).to.include('cdn reconcile').and.not.include(repo.url);
    expect((await core.post('/api/v1/gitops/reconcile', {}, 422)).field).to.equal('repo');
    expect((await core.post('/api/v1/gitops/reconcile', { repo: repo.url, now: true }, 422)).field).to.equal('now');
    expect(await core.db.auditEvent.count()).to.equal(before);
  });
});

describe('GitOps: reconcile now without a controller in the core', () => {
  let core: TestCore;
  before(async () => {
    core = await TestCore.start();
  });
  after(async () => {
    await core.stop();
  });

  it('answers 409 naming the repo field', async () => {
    const refused = await core.post('/api/v1/gitops/reconcile', { repo: 'https://git.example/cdn.git' }, 409);
    expect(refused).to.include({ error: 'no controller in this core', field: 'repo' });
  });
});

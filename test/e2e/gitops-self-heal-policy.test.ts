import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import pino from 'pino';
import { simpleGit, type SimpleGit } from 'simple-git';
import { ApiClient } from '../../src/gitops/api-client.js';
import { GitopsController } from '../../src/gitops/controller.js';
import { sourceFor } from '../../src/gitops/source.js';
import { TestCore, type Json } from '../support/core.js';
import { eventually } from '../support/eventually.js';

const exec = promisify(execFile);
const CLI = new URL('../../bin/cdn.js', import.meta.url).pathname;
const SECRET = 'policy-webhook-secret';

const domainFile = (apex: string, selfHeal: boolean) => `domain: ${apex}
policy: { prune: true, self_heal: ${selfHeal} }
records:
  - { type: A, name: "@", content: 198.51.100.40 }
  - { type: A, name: www, content: 198.51.100.41 }
  - { type: TXT, name: mail, content: v=spf1 -all }
`;

// What self_heal means between commits and on a new commit: a real repository pushed to a bare
// remote, the controller inside the core woken by a signed push hook, and API writes in between.
describe('GitOps self_heal and prune: between commits and on a new commit', function () {
  this.timeout(90000);
  let dir: string;
  let work: SimpleGit;
  let core: TestCore;
  let first: string;
  let lastRunId = '0';

  const commit = async (message: string) => {
    await work.add('.');
    await work.commit(message);
    await work.push('origin', 'main');
    return (await work.revparse(['HEAD'])).trim();
  };
  const hook = async () => {
    const body = '{"ref":"refs/heads/main"}';
    const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
    const answer = await fetch(`${core.url}/api/v1/gitops/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature }, body });
    expect(answer.status).to.equal(202);
  };
  // The next recorded run of `sha` after the last one a test looked at.
  const nextRun = async (sha: string) => {
    const run = await eventually(`a new run of ${sha.slice(0, 8)}`, async () =>
      (await core.get('/api/v1/gitops/runs?limit=50')).data.find((candidate: Json) => candidate.commit_sha === sha && BigInt(candidate.id) > BigInt(lastRunId)),
    );
    lastRunId = run.id;
    return run;
  };
  const domainId = async (apex: string) => (await core.get('/api/v1/domains?limit=500')).data.find((domain: Json) => domain.domain === apex).id;
  const records = async (apex: string) => (await core.get(`/api/v1/domains/${await domainId(apex)}/dns/records`)).data as Json[];
  const recordNamed = async (apex: string, name: string) => (await records(apex)).find((record) => record.name === name);
  const byKey = (items: Json[]) => [...items].sort((a, b) => `${a.domain} ${a.key}`.localeCompare(`${b.domain} ${b.key}`));

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cdn-gitops-policy-'));
    await simpleGit().init(true, [path.join(dir, 'remote.git'), '--initial-branch=main']);
    await mkdir(path.join(dir, 'work/domains'), { recursive: true });
    await writeFile(path.join(dir, 'work/domains/keep.example.yaml'), domainFile('keep.example', false));
    await writeFile(path.join(dir, 'work/domains/heal.example.yaml'), domainFile('heal.example', true));
    work = simpleGit(path.join(dir, 'work'));
    await work.init(['--initial-branch=main']);
    await work.addConfig('user.email', 'ops@example.net').addConfig('user.name', 'Ops');
    await work.addRemote('origin', path.join(dir, 'remote.git'));
    first = await commit('two domains, one healing itself');
    core = await TestCore.start({
      CDN_GITOPS_REPO: `file://${path.join(dir, 'remote.git')}`,
      CDN_GITOPS_BRANCH: 'main',
      CDN_GITOPS_INTERVAL_SECONDS: '3600',
      CDN_GITOPS_WEBHOOK_SECRET: SECRET,
      CDN_DATA_DIR: path.join(dir, 'data'),
    });
    expect((await nextRun(first)).status).to.equal('applied');
  });
  after(async () => {
    await core?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('between commits, keeps a record added through the API and reports it as drift with self_heal off; deletes it and lists it as reverted with self_heal on', async () => {
    for (const apex of ['keep.example', 'heal.example']) await core.post(`/api/v1/domains/${await domainId(apex)}/dns/records`, { type: 'TXT', name: 'manual', content: 'made by hand' }, 201);
    await hook();
    const run = await nextRun(first);
    expect(await recordNamed('keep.example', 'manual')).to.include({ type: 'TXT', content: 'made by hand' });
    expect(await recordNamed('heal.example', 'manual')).to.equal(undefined);
    expect(run.drift).to.deep.equal([{ domain: 'keep.example', resource: 'record', key: 'TXT manual made by hand', action: 'delete', fields: [] }]);
    expect(run.reverted).to.deep.equal([{ domain: 'heal.example', resource: 'record', key: 'TXT manual made by hand', action: 'delete', fields: [] }]);
    expect(run.counts).to.include({ deletes: 1, drift: 1, reverted: 1 });
    const status = (await core.get('/api/v1/gitops/status')).data.repos[0];
    expect(status).to.include({ state: 'drifted', last_good_commit: first });
    expect(status.last_run.drift).to.deep.equal(run.drift);
  });

  it('between commits, leaves a record changed and a record deleted through the API as they are with self_heal off, and reports both as drift', async () => {
    for (const apex of ['keep.example', 'heal.example']) {
      const id = await domainId(apex);
      await core.patch(`/api/v1/domains/${id}/dns/records/${(await recordNamed(apex, 'www')).id}`, { ttl: 900 });
      await core.delete(`/api/v1/domains/${id}/dns/records/${(await recordNamed(apex, 'mail')).id}`);
    }
    await hook();
    const run = await nextRun(first);
    expect((await recordNamed('keep.example', 'www')).ttl).to.equal(900);
    expect(await recordNamed('keep.example', 'mail')).to.equal(undefined);
    expect(await recordNamed('keep.example', 'manual')).to.not.equal(undefined);
    expect(byKey(run.drift)).to.deep.equal([
      { domain: 'keep.example', resource: 'record', key: 'A www 198.51.100.41', action: 'update', fields: [{ field: 'ttl', before: 900, after: 300 }] },
      { domain: 'keep.example', resource: 'record', key: 'TXT mail v=spf1 -all', action: 'create', fields: [{ field: 'type', before: null, after: 'TXT' }, { field: 'name', before: null, after: 'mail' }, { field: 'content', before: null, after: 'v=spf1 -all' }] },
      { domain: 'keep.example', resource: 'record', key: 'TXT manual made by hand', action: 'delete', fields: [] },
    ]);
    expect((await recordNamed('heal.example', 'www')).ttl).to.equal(300);
    expect(await recordNamed('heal.example', 'mail')).to.include({ type: 'TXT', content: 'v=spf1 -all' });
    expect(byKey(run.reverted).map((item) => `${item.action} ${item.key}`)).to.deep.equal(['update A www 198.51.100.41', 'create TXT mail v=spf1 -all']);
  });

  it('still counts the same commit as between commits after a restart', async () => {
    await core.post(`/api/v1/domains/${await domainId('keep.example')}/dns/records`, { type: 'TXT', name: 'manual-2', content: 'made by hand' }, 201);
    const restarted = new GitopsController({
      source: sourceFor(`file://${path.join(dir, 'remote.git')}`, 'main', '.', path.join(dir, 'data-restarted')),
      client: new ApiClient(core.url),
      intervalMs: 3600000,
      logger: pino({ level: 'silent' }),
    });
    await restarted.restore();
    const report = await restarted.reconcileNow('manual');
    await restarted.stop();
    lastRunId = (await core.get('/api/v1/gitops/runs?limit=1')).data[0].id;
    expect(report.status).to.equal('no_changes');
    expect(report.drift.map((item) => `${item.action} ${item.key}`)).to.include.members(['delete TXT manual made by hand', 'delete TXT manual-2 made by hand']);
    expect(await recordNamed('keep.example', 'manual-2')).to.not.equal(undefined);
  });

  it('prunes the records added through the API when a new commit is applied, as the plan of that commit shows, and keeps drift git did not change', async () => {
    const file = path.join(dir, 'work/domains/keep.example.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('records:\n', 'records:\n  - { type: TXT, name: added, content: added in git }\n'));
    const { stdout } = await exec(process.execPath, [CLI, 'plan', path.join(dir, 'work'), '--json', '--url', core.url], { env: { ...process.env, CDN_LOG_LEVEL: 'silent' } });
    const planned = JSON.parse(stdout).domains.find((domain: Json) => domain.domain === 'keep.example');
    expect(planned.changes.filter((change: Json) => change.action === 'delete').map((change: Json) => change.key)).to.have.members(['TXT manual made by hand', 'TXT manual-2 made by hand']);
    const sha = await commit('a record added in git');
    await hook();
    const run = await nextRun(sha);
    expect(run.status).to.equal('applied');
    const names = (await records('keep.example')).map((record) => record.name);
    expect(names).to.include('added');
    expect(names).to.not.include('manual');
    expect(names).to.not.include('manual-2');
    expect((await core.get('/api/v1/gitops/status')).data.repos[0].last_run.plan_markdown).to.include('| - | record | <code>TXT manual made by hand</code> |');
    expect(byKey(run.drift).map((item) => `${item.action} ${item.key}`)).to.deep.equal(['update A www 198.51.100.41', 'create TXT mail v=spf1 -all']);
    expect((await recordNamed('keep.example', 'www')).ttl).to.equal(900);
  });

  it('does not weigh drift it leaves alone in the safety gate', async () => {
    await writeFile(path.join(dir, 'work/cdn-gitops.yaml'), 'min_live_items: 0\nmax_delete_percent: 1\n');
    await rm(path.join(dir, 'work/domains/heal.example.yaml'));
    const sha = await commit('a strict gate; heal.example leaves git');
    await hook();
    expect((await nextRun(sha)).status).to.equal('no_changes');
    await core.post(`/api/v1/domains/${await domainId('keep.example')}/dns/records`, { type: 'TXT', name: 'manual-3', content: 'made by hand' }, 201);
    await hook();
    const run = await nextRun(sha);
    expect(run).to.include({ status: 'no_changes', error: null });
    expect(run.drift.map((item: Json) => `${item.action} ${item.key}`)).to.include('delete TXT manual-3 made by hand');
    expect(await recordNamed('keep.example', 'manual-3')).to.not.equal(undefined);
  });
});

import { createHmac } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { simpleGit, type SimpleGit } from 'simple-git';
import pino from 'pino';
import { ApiClient } from '../../src/gitops/api-client.js';
import { GitopsController } from '../../src/gitops/controller.js';
import { sourceFor } from '../../src/gitops/source.js';
import { TestCore, type Json } from '../support/core.js';
import { eventually } from '../support/eventually.js';

const EXAMPLE = new URL('../../config-repo-example', import.meta.url).pathname;
const SECRET = 'webhook-secret';

// A real git repository in a temp folder: commits are pushed to a bare "remote" the
// in-core controller clones; a signed push hook makes it reconcile at once.
describe('GitOps controller in the core', function () {
  this.timeout(90000);
  let dir: string;
  let work: SimpleGit;
  let core: TestCore;
  const shas: string[] = [];

  const commit = async (message: string, change: () => Promise<void>) => {
    await change();
    await work.add('.');
    await work.commit(message);
    await work.push('origin', 'main');
    const sha = (await work.revparse(['HEAD'])).trim();
    shas.push(sha);
    return sha;
  };
  const edit = async (file: string, change: (text: string) => string) => {
    const target = path.join(dir, 'work', file);
    await writeFile(target, change(await readFile(target, 'utf8')));
  };
  const sign = (body: string) => `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
  const hook = async (body = '{"ref":"refs/heads/main"}', signature = sign(body), contentType = 'application/json') =>
    fetch(`${core.url}/api/v1/gitops/webhook`, { method: 'POST', headers: { 'content-type': contentType, 'x-hub-signature-256': signature }, body });
  // GitHub's default delivery: the JSON event url-encoded in the `payload` field of a form.
  const formHook = (event: object) => {
    const body = new URLSearchParams({ payload: JSON.stringify(event) }).toString();
    return hook(body, sign(body), 'application/x-www-form-urlencoded');
  };
  const runFor = (sha: string) => eventually(`a run of ${sha.slice(0, 8)}`, async () => (await core.get('/api/v1/gitops/runs')).data.find((run: Json) => run.commit_sha === sha));
  const domainByApex = async (apex: string) => (await core.get('/api/v1/domains?limit=500')).data.find((domain: Json) => domain.domain === apex);

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cdn-gitops-e2e-'));
    await simpleGit().init(true, [path.join(dir, 'remote.git'), '--initial-branch=main']);
    await cp(EXAMPLE, path.join(dir, 'work'), { recursive: true });
    work = simpleGit(path.join(dir, 'work'));
    await work.init(['--initial-branch=main']);
    await work.addConfig('user.email', 'ops@example.net').addConfig('user.name', 'Ops');
    await work.addRemote('origin', path.join(dir, 'remote.git'));
    await commit('initial desired state', async () => {});
    process.env.SHOP_SHIELD_SECRET = 'e2e-shield-secret';
    core = await TestCore.start({
      CDN_GITOPS_REPO: `file://${path.join(dir, 'remote.git')}`,
      CDN_GITOPS_BRANCH: 'main',
      CDN_GITOPS_INTERVAL_SECONDS: '3600',
      CDN_GITOPS_WEBHOOK_SECRET: SECRET,
      CDN_DATA_DIR: path.join(dir, 'data'),
    });
  });
  after(async () => {
    await core?.stop();
    delete process.env.SHOP_SHIELD_SECRET;
    await rm(dir, { recursive: true, force: true });
  });

  it('applies the repository at start and records the run with its commit', async () => {
    const run = await runFor(shas[0]);
    expect(run).to.include({ status: 'applied', trigger: 'start', branch: 'main' });
    expect((await core.get('/api/v1/domains?limit=500')).data.map((domain: Json) => domain.domain)).to.include.members(['shop.example', 'blog.example', 'api.example', 'docs.example', 'status.example']);
    const status = (await core.get('/api/v1/gitops/status')).data.repos[0];
    expect(status).to.include({ state: 'ok', last_good_commit: shas[0] });
    // No PowerDNS in this suite: every zone of the run says publishing is off.
    expect(status.dns.map((zone: Json) => zone.domain)).to.include.members(['shop.example', 'blog.example']);
    expect(new Set(status.dns.map((zone: Json) => zone.status))).to.deep.equal(new Set(['off']));
  });

  it('converges to an edited and a deleted record after a signed push hook', async () => {
    const sha = await commit('longer ttl, no media record', async () =>
      edit('domains/blog.example.yaml', (text) =>
        text.replace('{ type: A, name: "@", content: 198.51.100.30, proxied: true }', '{ type: A, name: "@", content: 198.51.100.30, proxied: true, ttl: 900 }').replace('  - { type: CNAME, name: media, content: media-bucket.storage.example.net, proxied: true }\n', ''),
      ),
    );
    const answer = await hook();
    expect(answer.status).to.equal(202);
    expect((await answer.json()).data.triggered).to.equal(true);
    expect(await runFor(sha)).to.include({ status: 'applied', trigger: 'webhook' });
    const blog = await domainByApex('blog.example');
    const records = (await core.get(`/api/v1/domains/${blog.id}/dns/records`)).data;
    expect(records.find((record: Json) => record.name === '@').ttl).to.equal(900);
    expect(records.map((record: Json) => record.name)).to.not.include('media');
  });

  it('rejects a commit that does not validate, keeps the last good state and shows why with file:line', async () => {
    const before = (await core.get(`/api/v1/domains/${(await domainByApex('shop.example')).id}/dns/records`)).data;
    const sha = await commit('broken record', async () => edit('domains/shop.example.yaml', (text) => text.replace('content: 198.51.100.20,', 'content: 999.1.1.1,')));
    await hook();
    const run = await runFor(sha);
    expect(run.status).to.equal('rejected');
    expect(run.problems[0]).to.match(/^domains\/shop\.example\.yaml:\d+:\d+: an A record needs an IPv4 address, got "999\.1\.1\.1"$/);
    expect((await core.get(`/api/v1/domains/${(await domainByApex('shop.example')).id}/dns/records`)).data).to.deep.equal(before);
    const status = (await core.get('/api/v1/gitops/status')).data.repos[0];
    expect(status).to.include({ state: 'rejected', last_good_commit: shas[1] });
    const warning = (await core.get('/api/v1/overview/warnings')).data.warnings.find((item: Json) => item.code === 'gitops_rejected');
    expect(warning.message).to.include(shas[1].slice(0, 12));
  });

  it('records a rejected commit once, however often it is reconciled', async () => {
    const sha = shas.at(-1)!;
    await hook();
    expect((await reconcileAfterRestart('data-rejected')).status).to.equal('rejected');
    expect((await reconcileAfterRestart('data-rejected')).status).to.equal('rejected');
    const runs = (await core.get('/api/v1/gitops/runs?limit=50')).data.filter((run: Json) => run.commit_sha === sha);
    expect(runs.map((run: Json) => run.status)).to.deep.equal(['rejected']);
  });

  it('reports an API change to a git-owned item as drift and keeps it when self_heal is off, reverts it when on', async () => {
    const sha = await commit('fix the record', async () => edit('domains/shop.example.yaml', (text) => text.replace('content: 999.1.1.1,', 'content: 198.51.100.20,')));
    const docs = await domainByApex('docs.example');
    const [docsOrigin] = (await core.get(`/api/v1/domains/${docs.id}/origins`)).data;
    await core.patch(`/api/v1/domains/${docs.id}/origins/${docsOrigin.id}`, { weight: 7 });
    const shop = await domainByApex('shop.example');
    const shopOrigin = (await core.get(`/api/v1/domains/${shop.id}/origins`)).data.find((origin: Json) => origin.host === 'backup.shop.example.net');
    await core.patch(`/api/v1/domains/${shop.id}/origins/${shopOrigin.id}`, { weight: 3 });
    await hook();
    const run = await runFor(sha);
    expect(run.status).to.equal('applied');
    expect(run.drift).to.deep.equal([{ domain: 'docs.example', resource: 'origin', key: 'https://docs-site.pages.example.net:443', action: 'update', fields: [{ field: 'weight', before: 7, after: 100 }] }]);
    expect((await core.get(`/api/v1/domains/${docs.id}/origins`)).data[0].weight).to.equal(7);
    expect((await core.get(`/api/v1/domains/${shop.id}/origins`)).data.find((origin: Json) => origin.id === shopOrigin.id).weight).to.equal(100);
    expect(run.reverted).to.deep.equal([{ domain: 'shop.example', resource: 'origin', key: 'https://backup.shop.example.net:443', action: 'update', fields: [{ field: 'weight', before: 3, after: 100 }] }]);
    expect(run.counts.reverted).to.equal(1);
    expect((await core.get('/api/v1/gitops/status')).data.repos[0]).to.include({ state: 'drifted', last_good_commit: sha });
  });

  // A second controller, as after a restart: it restores its state from the core, then reconciles once.
  const reconcileAfterRestart = async (dataDir: string) => {
    const restarted = new GitopsController({
      source: sourceFor(`file://${path.join(dir, 'remote.git')}`, 'main', '.', path.join(dir, dataDir)),
      client: new ApiClient(core.url),
      intervalMs: 3600000,
      logger: pino({ level: 'silent' }),
    });
    await restarted.restore();
    const report = await restarted.reconcileNow('manual');
    await restarted.stop();
    return report;
  };

  it('still tells drift from git changes after a restart, from the last good commit', async () => {
    const report = await reconcileAfterRestart('data-restarted');
    expect(report.drift.map((item) => `${item.domain} ${item.resource}`)).to.deep.equal(['docs.example origin']);
    const docs = await domainByApex('docs.example');
    expect((await core.get(`/api/v1/domains/${docs.id}/origins`)).data[0].weight).to.equal(7);
  });

  it('treats a record created through the API as cdn plan does when a new commit is applied: pruned with prune on, kept and listed as not in git with it off', async () => {
    const blog = await domainByApex('blog.example');
    const status = await domainByApex('status.example');
    await core.post(`/api/v1/domains/${blog.id}/dns/records`, { type: 'TXT', name: 'manual', content: 'made by hand' }, 201);
    await core.post(`/api/v1/domains/${status.id}/dns/records`, { type: 'TXT', name: 'manual', content: 'made by hand' }, 201);
    const sha = await commit('drop the www record', async () => edit('domains/blog.example.yaml', (text) => text.replace('  - { type: CNAME, name: www, content: blog.example, proxied: true }\n', '')));
    await hook();
    const run = await runFor(sha);
    expect(run.status).to.equal('applied');
    const names = (await core.get(`/api/v1/domains/${blog.id}/dns/records`)).data.map((record: Json) => record.name);
    expect(names).to.not.include('manual');
    expect(names).to.not.include('www');
    expect((await core.get(`/api/v1/domains/${status.id}/dns/records`)).data.map((record: Json) => record.name)).to.include('manual');
    expect(run.not_in_git).to.deep.equal([{ domain: 'status.example', resource: 'record', key: 'TXT manual made by hand' }]);
    expect(run.counts.not_in_git).to.equal(1);
  });

  it('leaves a domain whose file was removed in place (orphaned) unless the repository allows deleting it', async () => {
    const sha = await commit('remove status.example', async () => rm(path.join(dir, 'work/domains/status.example.yaml')));
    await hook();
    expect((await runFor(sha)).status).to.be.oneOf(['applied', 'no_changes']);
    expect(await domainByApex('status.example')).to.not.equal(undefined);
    const deleting = await commit('allow deleting removed domains', async () => edit('cdn-gitops.yaml', (text) => text.replace('delete_removed_domains: false', 'delete_removed_domains: true')));
    await hook();
    expect((await runFor(deleting)).status).to.equal('applied');
    expect(await domainByApex('status.example')).to.equal(undefined);
  });

  it('reports a domain whose file was removed as orphaned in the run and in the status, also after a restart', async () => {
    const sha = await commit('remove api.example, keep removed domains', async () => {
      await rm(path.join(dir, 'work/domains/api.example.yaml'));
      await edit('cdn-gitops.yaml', (text) => text.replace('delete_removed_domains: true', 'delete_removed_domains: false'));
    });
    await hook();
    const run = await runFor(sha);
    expect(run.orphaned).to.deep.equal(['api.example']);
    expect(run.counts.orphaned).to.equal(1);
    const status = (await core.get('/api/v1/gitops/status')).data.repos[0];
    expect(status.orphaned).to.deep.equal(['api.example']);
    expect(status.managed.map((item: Json) => item.domain)).to.not.include('api.example');
    const blog = status.managed.find((item: Json) => item.domain === 'blog.example');
    expect(blog.file).to.equal('domains/blog.example.yaml');
    expect(blog.commit).to.match(/^[0-9a-f]{40}$/);
    const report = await reconcileAfterRestart('data-orphans');
    expect(report.orphaned).to.deep.equal(['api.example']);
    expect(await domainByApex('api.example')).to.not.equal(undefined);
  });

  it('applies a refused plan once an operator accepts it for that commit, and records who and why', async () => {
    // self_heal on: records made by hand later are deleted by the same commit's runs too (weighed by the gate).
    const sha = await commit('drop most of blog.example, heal it, and tighten the gate', async () => {
      await edit('domains/blog.example.yaml', (text) => text.replace(/records:\n(  - .*\n)+/, 'policy: { self_heal: true }\nrecords: []\n'));
      await edit('cdn-gitops.yaml', (text) => `${text}min_live_items: 0\nmax_delete_percent: 1\n`.replace('max_delete_percent: 25\n', ''));
    });
    await hook();
    const refused = await runFor(sha);
    expect(refused.status).to.equal('refused');
    await core.post('/api/v1/gitops/acceptances', { repo: refused.repo, commit_sha: 'f'.repeat(40), reason: 'typo' }, 409);
    const accepted = await core.post('/api/v1/gitops/acceptances', { repo: refused.repo, commit_sha: sha.slice(0, 10), reason: 'blog moves to a static host' }, 201);
    expect(accepted.data).to.include({ commit_sha: sha, reason: 'blog moves to a static host', actor: 'anonymous' });
    const applied = await eventually('the accepted run', async () => (await core.get('/api/v1/gitops/runs')).data.find((run: Json) => run.commit_sha === sha && run.status === 'applied'));
    expect(applied.accepted).to.include({ reason: 'blog moves to a static host', actor: 'anonymous' });
    expect(applied.accepted.safety).to.match(/^the plan deletes \d+ of \d+ live items/);
    expect((await core.get(`/api/v1/domains/${(await domainByApex('blog.example')).id}/dns/records`)).data).to.deep.equal([]);
    const audit = (await core.get('/api/v1/audit?limit=20')).data.find((event: Json) => event.action === 'gitops.accept_refused_plan');
    expect(audit).to.include({ target_type: 'gitops_commit', target_id: sha });

    // The acceptance was used up: records made by hand since are a new plan of the same commit, refused again.
    const blog = await domainByApex('blog.example');
    const laterRun = (status: string, after: string) => eventually(`a later ${status} run`, async () => (await core.get('/api/v1/gitops/runs')).data.find((run: Json) => run.commit_sha === sha && run.status === status && BigInt(run.id) > BigInt(after)));
    await core.post(`/api/v1/domains/${blog.id}/dns/records`, { type: 'TXT', name: 'by-hand-1', content: 'made by hand' }, 201);
    await hook();
    const refusedAgain = await laterRun('refused', applied.id);
    expect(refusedAgain.error).to.match(/^the plan deletes 1 of \d+ live items/);
    const query = new URLSearchParams({ repo: refused.repo, commit_sha: sha });
    expect((await core.get(`/api/v1/gitops/acceptances?${query}`)).data[0].used_at).to.be.a('number');

    // An acceptance holds for the refusal it was given for, not for a plan that deletes more since.
    await core.post(`/api/v1/domains/${blog.id}/dns/records`, { type: 'TXT', name: 'by-hand-2', content: 'made by hand' }, 201);
    const second = await core.post('/api/v1/gitops/acceptances', { repo: refused.repo, commit_sha: sha, reason: 'the hand-made record goes' }, 201);
    expect(second.data).to.include({ safety: refusedAgain.error, used_at: null });
    const mismatched = await laterRun('refused', refusedAgain.id);
    expect(mismatched.error).to.match(/^the plan deletes 2 of \d+ live items.*\(the acceptance by anonymous was for another plan: the plan deletes 1 of \d+/);
    expect((await core.get(`/api/v1/domains/${blog.id}/dns/records`)).data).to.have.length(2);
    const restored = await commit('restore blog.example and the gate', async () => {
      await cp(path.join(EXAMPLE, 'domains/blog.example.yaml'), path.join(dir, 'work/domains/blog.example.yaml'));
      await edit('cdn-gitops.yaml', (text) => text.replace('min_live_items: 0\nmax_delete_percent: 1\n', 'max_delete_percent: 25\n'));
    });
    await hook();
    expect((await runFor(restored)).status).to.equal('applied');
  });

  it('wakes the controller from a form-encoded push hook signed over its raw bytes', async () => {
    const sha = await commit('txt record for the form hook', async () =>
      edit('domains/blog.example.yaml', (text) => text.replace('records:\n', 'records:\n  - { type: TXT, name: form-hook, content: delivered as a form }\n')),
    );
    const answer = await formHook({ ref: 'refs/heads/main', after: sha });
    expect(answer.status).to.equal(202);
    expect((await answer.json()).data).to.deep.equal({ triggered: true, ref: 'refs/heads/main' });
    expect(await runFor(sha)).to.include({ status: 'applied', trigger: 'webhook' });
    const records = (await core.get(`/api/v1/domains/${(await domainByApex('blog.example')).id}/dns/records`)).data;
    expect(records.map((record: Json) => record.name)).to.include('form-hook');
  });

  it('acknowledges a push to another branch without reconciling', async () => {
    const answer = await hook('{"ref":"refs/heads/feature"}');
    expect(answer.status).to.equal(202);
    expect((await answer.json()).data).to.deep.equal({ triggered: false, ref: 'refs/heads/feature' });
  });

  it('refuses a form-encoded push hook whose signature does not match its bytes with 401', async () => {
    const body = new URLSearchParams({ payload: '{"ref":"refs/heads/main"}' }).toString();
    expect((await hook(body, sign(`${body}&x=1`), 'application/x-www-form-urlencoded')).status).to.equal(401);
  });

  it('refuses a signed push hook of another content type with 415', async () => {
    const answer = await hook('ref=refs/heads/main', sign('ref=refs/heads/main'), 'text/plain');
    expect(answer.status).to.equal(415);
    expect((await answer.json()).error).to.equal('unsupported webhook content type');
  });

  it('refuses a signed form push hook without a payload field with 422', async () => {
    const answer = await hook('ref=refs%2Fheads%2Fmain', sign('ref=refs%2Fheads%2Fmain'), 'application/x-www-form-urlencoded');
    expect(answer.status).to.equal(422);
    expect((await answer.json()).field).to.equal('payload');
  });

  it('refuses push hooks without a valid signature', async () => {
    expect((await hook('{"ref":"x"}', 'sha256=00')).status).to.equal(401);
    const unsigned = await fetch(`${core.url}/api/v1/gitops/webhook`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(unsigned.status).to.equal(401);
  });
});

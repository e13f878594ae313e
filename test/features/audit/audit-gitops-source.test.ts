import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import pino from 'pino';
import { simpleGit } from 'simple-git';
import { ApiClient } from '../../../src/gitops/api-client.js';
import { GitopsController } from '../../../src/gitops/controller.js';
import { sourceFor } from '../../../src/gitops/source.js';
import { TestCore, type Json } from '../../support/core.js';
import { GitopsRepo } from '../../support/gitops-repo.js';

const CLI = new URL('../../../bin/cdn.js', import.meta.url).pathname;
const DOMAIN = (content: string) => `domain: sourced.example
records:
  - { type: A, name: www, content: ${content} }
origins:
  - { host: origin.sourced.example }
`;

type Result = { code: number; stdout: string; stderr: string };

// The `cdn` command as CI runs it: its own process, no stdin.
function cdn(args: string[]): Promise<Result> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }));
  });
}

// The controller's writes name the repository and commit they apply, in every audit event.
describe('audit log: the GitOps source of a write', function () {
  this.timeout(60000);
  let core: TestCore;
  let repo: GitopsRepo;
  let data: string;
  let controller: GitopsController;

  const events = async (query: string): Promise<Json[]> => (await core.get(`/api/v1/audit?limit=500&${query}`)).data;

  before(async () => {
    core = await TestCore.start();
    repo = await GitopsRepo.create({ 'domains/sourced.example.yaml': DOMAIN('192.0.2.10') });
    data = await mkdtemp(path.join(tmpdir(), 'cdn-audit-source-'));
    controller = new GitopsController({ source: sourceFor(repo.url, 'main', '.', data), client: new ApiClient(core.url), intervalMs: 3600000, logger: pino({ level: 'silent' }) });
  });
  after(async () => {
    await controller?.stop();
    await core?.stop();
    await repo?.remove();
    await rm(data, { recursive: true, force: true });
  });

  it('records the repository and commit of every write a controller applies', async () => {
    expect((await controller.reconcileNow()).status).to.equal('applied');
    const created = await events('target=sourced.example');
    expect(created.map((event) => event.action).sort()).to.deep.equal(['dns_record.create', 'domain.create', 'origin.create']);
    for (const event of created) expect(event, event.action).to.include({ gitops_repo: repo.url, gitops_commit: repo.shas[0], actor: 'anonymous' });
    const sha = await repo.commit('move www', { 'domains/sourced.example.yaml': DOMAIN('192.0.2.11') });
    expect((await controller.reconcileNow()).status).to.equal('applied');
    const [update] = await events('action=dns_record.update');
    expect(update).to.include({ target_name: 'A www.sourced.example', gitops_repo: repo.url, gitops_commit: sha });
  });

  it('records the repository and commit of `cdn apply`, from a checkout and from a saved plan', async () => {
    const applied = await GitopsRepo.create({ 'domains/applied.example.yaml': DOMAIN('192.0.2.20').replace('sourced.example', 'applied.example').replace('origin.sourced', 'origin.applied') });
    try {
      const work = path.join(applied.dir, 'work');
      const next = await applied.commit('move www', { 'domains/applied.example.yaml': DOMAIN('192.0.2.21').replace('sourced.example', 'applied.example').replace('origin.sourced', 'origin.applied') });
      // How CI checks out a private repository; the credentials must not reach the audit log.
      await simpleGit(work).remote(['set-url', 'origin', 'https://x-access-token:ghs_applytoken@git.example/acme/cdn.git']);
      const plan = path.join(applied.dir, 'plan.json');
      expect((await cdn(['plan', work, '--out', plan, '--url', core.url])).code).to.equal(0);
      const fromPlan = await cdn(['apply', plan, '--url', core.url]);
      expect(fromPlan.code, fromPlan.stderr).to.equal(0);
      const created = await events('target=applied.example');
      expect(created.map((event) => event.action).sort()).to.deep.equal(['dns_record.create', 'domain.create', 'origin.create']);
      for (const event of created) expect(event, event.action).to.include({ gitops_repo: 'https://git.example/acme/cdn.git', gitops_commit: next });
      await writeFile(path.join(work, 'domains/applied.example.yaml'), DOMAIN('192.0.2.22').replace('sourced.example', 'applied.example').replace('origin.sourced', 'origin.applied'));
      await simpleGit(work).add('.').then(() => simpleGit(work).commit('move www again'));
      const last = (await simpleGit(work).revparse(['HEAD'])).trim();
      const fromCheckout = await cdn(['apply', work, '--url', core.url]);
      expect(fromCheckout.code, fromCheckout.stderr).to.equal(0);
      const [update] = await events('action=dns_record.update&target=applied.example');
      expect(update).to.include({ target_name: 'A www.applied.example', gitops_repo: 'https://git.example/acme/cdn.git', gitops_commit: last });
      expect(JSON.stringify(await events(''))).to.not.include('ghs_applytoken');
    } finally {
      await applied.remove();
    }
  });

  it('leaves them empty for a write made through the API by hand', async () => {
    const domain = (await core.get('/api/v1/domains?q=sourced')).data[0];
    await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'TXT', name: 'note', content: 'by hand' }, 201);
    const [event] = await events('action=dns_record.create&target=note');
    expect(event).to.include({ gitops_repo: null, gitops_commit: null });
  });

  it('keeps credentials out of the recorded repository, and reads it percent-encoded', async () => {
    const headers = { 'x-cdn-gitops-repo': 'https://x-access-token:ghs_secret123@github.com/acme/cdn-config.git', 'x-cdn-gitops-commit': 'ABCDEF1234567' };
    await core.post('/api/v1/domains', { domain: 'token.example' }, 201, { headers });
    const [event] = await events('action=domain.create&target=token.example');
    expect(event).to.include({ gitops_repo: 'https://github.com/acme/cdn-config.git', gitops_commit: 'abcdef1234567' });
    expect(JSON.stringify(await events(''))).to.not.include('ghs_secret123');
    await core.post('/api/v1/domains', { domain: 'local.example' }, 201, { headers: { 'x-cdn-gitops-repo': encodeURI('/srv/dépôt cdn') } });
    expect((await events('action=domain.create&target=local.example'))[0].gitops_repo).to.equal('/srv/dépôt cdn');
  });

  it('refuses a malformed source with 422 naming the header, and writes nothing', async () => {
    const before = await core.rowCounts();
    const refused: [Record<string, string>, string][] = [
      [{ 'x-cdn-gitops-repo': 'https://git.example/cdn.git', 'x-cdn-gitops-commit': 'not-a-commit' }, 'X-CDN-GitOps-Commit'],
      [{ 'x-cdn-gitops-commit': 'abcdef1234567' }, 'X-CDN-GitOps-Repo'],
      [{ 'x-cdn-gitops-repo': '%E0%A4%A' }, 'X-CDN-GitOps-Repo'],
      [{ 'x-cdn-gitops-repo': 'repo%00' }, 'X-CDN-GitOps-Repo'],
      [{ 'x-cdn-gitops-repo': 'r'.repeat(2049) }, 'X-CDN-GitOps-Repo'],
    ];
    for (const [headers, field] of refused) {
      const answer = await core.post('/api/v1/domains', { domain: 'refused.example' }, 422, { headers });
      expect(answer.field, JSON.stringify(headers)).to.equal(field);
    }
    expect(await core.rowCounts()).to.deep.equal(before);
  });
});

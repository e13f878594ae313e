import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { TestCore, type Json } from '../support/core.js';
import { eventually } from '../support/eventually.js';

const exec = promisify(execFile);
const EXAMPLE = new URL('../../config-repo-example', import.meta.url).pathname;
const CLI = new URL('../../bin/cdn.js', import.meta.url).pathname;

describe('GitOps from a local working copy, and cdn reconcile --once', function () {
  this.timeout(90000);
  let dir: string;
  let core: TestCore;
  const env = { ...process.env, SHOP_SHIELD_SECRET: 'wc-secret' };

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cdn-gitops-wc-'));
    await cp(EXAMPLE, path.join(dir, 'repo'), { recursive: true });
    process.env.SHOP_SHIELD_SECRET = 'wc-secret';
    core = await TestCore.start({ CDN_GITOPS_REPO: path.join(dir, 'repo'), CDN_GITOPS_INTERVAL_SECONDS: '3600', CDN_DATA_DIR: path.join(dir, 'data'), CDN_API_TOKEN: 'wc-token' });
    core.token = 'wc-token';
  });
  after(async () => {
    await core?.stop();
    delete process.env.SHOP_SHIELD_SECRET;
    await rm(dir, { recursive: true, force: true });
  });

  const statusDomain = async () => (await core.get('/api/v1/domains?limit=500')).data.find((domain: Json) => domain.domain === 'status.example');

  it('reconciles the working copy at start and again when a file changes', async () => {
    const status = await eventually('the first reconcile', statusDomain);
    const file = path.join(dir, 'repo/domains/status.example.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('{ type: A, name: "@", content: 192.0.2.51 }', '{ type: A, name: "@", content: 192.0.2.52 }'));
    await eventually('the watched change', async () => {
      const records = (await core.get(`/api/v1/domains/${status.id}/dns/records`)).data;
      return records.some((record: Json) => record.content === '192.0.2.52') ? true : undefined;
    });
    const runs = (await core.get('/api/v1/gitops/runs')).data;
    expect(runs[0]).to.include({ status: 'applied', trigger: 'watch', commit_sha: null });
  });

  it('runs one reconcile from the command line and reports no changes', async () => {
    const { stdout } = await exec(process.execPath, [CLI, 'reconcile', '--repo', path.join(dir, 'repo'), '--once', '--url', core.url, '--token', 'wc-token'], { env: { ...env, CDN_LOG_LEVEL: 'silent' } });
    expect(JSON.parse(stdout)).to.include({ status: 'no_changes', trigger: 'manual' });
  });

  it('exits 1 from cdn reconcile --once when the desired state does not validate', async () => {
    await writeFile(path.join(dir, 'repo/domains/bad.example.yaml'), 'domain: other.example\n');
    const failure = await exec(process.execPath, [CLI, 'reconcile', '--repo', path.join(dir, 'repo'), '--once', '--url', core.url, '--token', 'wc-token'], { env: { ...env, CDN_LOG_LEVEL: 'silent' } }).then(
      () => undefined,
      (error: { code: number; stdout: string }) => error,
    );
    expect(failure?.code).to.equal(1);
    expect(JSON.parse(failure!.stdout).problems).to.deep.equal(['domains/bad.example.yaml:1:9: the file of other.example must be named domains/other.example.yaml']);
  });

  it('plans the state of a git ref with cdn plan --ref, ignoring the working tree', async () => {
    const { simpleGit } = await import('simple-git');
    const repo = path.join(dir, 'repo');
    await rm(path.join(repo, 'domains/bad.example.yaml'));
    const git = simpleGit(repo);
    await git.init(['--initial-branch=main']);
    await git.addConfig('user.email', 'ops@example.net').addConfig('user.name', 'Ops');
    await git.add('.').commit('as applied');
    const file = path.join(repo, 'domains/status.example.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('content: 192.0.2.50 }', 'content: 192.0.2.59 }'));
    await git.add('.').commit('move a record');
    await writeFile(file, (await readFile(file, 'utf8')).replace('content: 192.0.2.59 }', 'content: 192.0.2.77 }'));
    const plan = async (ref: string) => JSON.parse((await exec(process.execPath, [CLI, 'plan', repo, '--ref', ref, '--json', '--url', core.url, '--token', 'wc-token'], { env })).stdout);
    const head = await plan('HEAD');
    const keys = head.domains.find((domain: Json) => domain.domain === 'status.example').changes.map((change: Json) => `${change.action} ${change.key}`);
    expect(keys).to.deep.equal(['create A @ 192.0.2.59']); // status.example has prune: false
    expect((await plan('HEAD~1')).counts).to.include({ creates: 0, updates: 0, deletes: 0 });
  });
});

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { SimpleGit } from 'simple-git';
import { cdnOnPath, repositoryWithRemote, runCdn, runProcess } from '../support/cdn-cli.js';
import { TestCore, type Json } from '../support/core.js';

const TOKEN = 'ci-conventions-token';
const REASON_PLACEHOLDER = '<why the deletes are intended>';

// gate.example with `count` TXT records: from 12 to 2 deletes 10 of its 13 live items, which the safety gate (25%) refuses.
const gateFile = (count: number) => `domain: gate.example\nrecords:\n${Array.from({ length: count }, (_, index) => `  - { type: TXT, name: r${index}, content: "record ${index}" }\n`).join('')}`;

describe('cdn plan and the controller as CI and operators use them: failed plans, the safety gate and refusals', function () {
  this.timeout(120000);
  let core: TestCore;
  let dir: string;
  let work: SimpleGit;
  let workDir: string;
  let remote: string;
  const cdn = (args: string[], env: NodeJS.ProcessEnv = {}) => runCdn(args, { CDN_API_TOKEN: TOKEN, ...env });
  const writeGate = (count: number) => writeFile(path.join(workDir, 'domains/gate.example.yaml'), gateFile(count));
  const liveTxtCount = async () => {
    const gate = (await core.get('/api/v1/domains')).data.find((domain: Json) => domain.domain === 'gate.example');
    return (await core.get(`/api/v1/domains/${gate.id}/dns/records`)).data.length;
  };

  before(async () => {
    core = await TestCore.start({ CDN_API_TOKEN: TOKEN });
    core.token = TOKEN;
    dir = await mkdtemp(path.join(tmpdir(), 'cdn-ci-conventions-'));
    ({ work, workDir, remote } = await repositoryWithRemote(dir));
    await mkdir(path.join(workDir, 'domains'));
    await writeGate(12);
    await work.add('.').commit('gate.example with 12 records').push('origin', 'main');
    const applied = await cdn(['apply', workDir, '--url', core.url]);
    expect(applied.code, applied.stderr).to.equal(0);
  });
  after(async () => {
    await core?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('prints a short Markdown error for the pull-request comment and exits 1 when --markdown cannot plan', async () => {
    await mkdir(path.join(dir, 'broken/domains'), { recursive: true });
    await writeFile(path.join(dir, 'broken/domains/bad.example.yaml'), 'domain: bad.example\nrecords:\n  - { type: A, name: "@", content: "<b>999.1.1.1" }\n');
    const invalid = await cdn(['plan', path.join(dir, 'broken'), '--markdown', '--url', core.url]);
    expect(invalid.code).to.equal(1);
    expect(invalid.stdout).to.match(/^### CDN plan failed\n\n1 problem\(s\); nothing was planned\.\n\n- <code>domains\/bad\.example\.yaml:3:\d+<\/code> an A record needs an IPv4 address/);
    expect(invalid.stdout).to.include('&#60;b&#62;999.1.1.1').and.not.include('<b>');

    const unreachable = await cdn(['plan', workDir, '--markdown', '--url', 'http://127.0.0.1:9']);
    expect(unreachable.code).to.equal(1);
    expect(unreachable.stdout).to.match(/^### CDN plan failed\n\ncould not reach the core API at http:\/\/127\.0\.0\.1:9\/api\/v1\/export\/domains/);
  });

  it('exits 3 from plan --detailed-exitcode for a plan the safety gate will refuse, the code apply refuses it with', async () => {
    await writeGate(2);
    const detailed = await cdn(['plan', workDir, '--detailed-exitcode', '--url', core.url]);
    expect(detailed.code, detailed.stderr).to.equal(3);
    expect(detailed.stdout).to.match(/warning: the plan deletes 10 of 13 live items \(77%\), more than max_delete_percent 25%\n/);
    expect(detailed.stderr).to.include('the safety gate will refuse this plan: apply it with cdn apply --force');
    const markdown = await cdn(['plan', workDir, '--detailed-exitcode', '--markdown', '--url', core.url]);
    expect(markdown.code).to.equal(3);
    expect(markdown.stdout).to.include('> [!WARNING]\n> the plan deletes 10 of 13 live items');
    expect((await cdn(['plan', workDir, '--url', core.url])).code).to.equal(0);
    const applied = await cdn(['apply', workDir, '--url', core.url]);
    expect(applied.code).to.equal(3);
    expect(applied.stderr).to.include('refused: the plan deletes 10 of 13 live items (77%), more than max_delete_percent 25%; use --force to apply it anyway');
    expect(await liveTxtCount()).to.equal(12);
  });

  it("names the cdn accept-plan line in the controller's refusal, and that line lets the controller apply the plan", async () => {
    await work.add('.').commit('gate.example keeps 2 records').push('origin', 'main');
    const sha = (await work.revparse(['HEAD'])).trim();
    const repo = `file://${remote}`;
    const env = { CDN_DATA_DIR: path.join(dir, 'data'), CDN_LOG_LEVEL: 'silent' };
    const refused = await cdn(['reconcile', '--repo', repo, '--once', '--url', core.url], env);
    expect(refused.code).to.equal(1);
    const report = JSON.parse(refused.stdout);
    expect(report.status).to.equal('refused');
    expect(report.error).to.equal(`the plan deletes 10 of 13 live items (77%), more than max_delete_percent 25%; to apply it anyway: cdn accept-plan --repo ${repo} --commit ${sha} --reason "${REASON_PLACEHOLDER}"`);
    expect(report.error).to.not.include('--force');

    // The operator copies the line, writes the reason, and runs it where `cdn` is installed.
    const line = `${report.error.split('to apply it anyway: ')[1].replace(REASON_PLACEHOLDER, 'gate.example keeps two records')} --url ${core.url}`;
    const bin = await cdnOnPath(path.join(dir, 'bin'));
    const accepted = await runProcess('bash', ['-c', line], { env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, CDN_API_TOKEN: TOKEN } });
    expect(accepted.code, accepted.stderr).to.equal(0);

    const applied = await cdn(['reconcile', '--repo', repo, '--once', '--url', core.url], env);
    expect(applied.code, applied.stdout).to.equal(0);
    expect(JSON.parse(applied.stdout)).to.deep.include({ status: 'applied', commit_sha: sha });
    expect(JSON.parse(applied.stdout).accepted.reason).to.equal('gate.example keeps two records');
    expect(await liveTxtCount()).to.equal(2);
  });
});

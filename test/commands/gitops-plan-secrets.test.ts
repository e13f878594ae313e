import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { TestCore, type Json } from '../support/core.js';

const CLI = new URL('../../bin/cdn.js', import.meta.url).pathname;
const VARIABLE = 'FORK_SHIELD_SECRET';
const VALUE = 'shield-value-from-production';

type Result = { code: number; stdout: string; stderr: string };

const domainFile = (secret: boolean) =>
  ['domain: fork.example', ...(secret ? ['origin_shield:', '  header_name: X-Shield', `  secret: \${${VARIABLE}}`] : []), 'records:', '  - { type: A, name: "@", content: 192.0.2.10 }', ''].join('\n');

// A pull request from a fork is planned in CI without the production secrets; only apply needs them.
describe('cdn plan without production secrets', function () {
  this.timeout(120000);
  let core: TestCore;
  let work: string;
  let repo: string;

  // The `cdn` command in its own process; the secret is in its environment only when `secret` is given.
  const cdn = (args: string[], secret?: string): Promise<Result> => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env[VARIABLE];
    delete env.CDN_API_TOKEN;
    if (secret) env[VARIABLE] = secret;
    return new Promise((resolve) => {
      execFile(process.execPath, [CLI, ...args, '--url', core.url], { env }, (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }));
    });
  };
  const domains = async () => (await core.get('/api/v1/domains')).data as Json[];

  before(async () => {
    core = await TestCore.start();
    work = await mkdtemp(path.join(tmpdir(), 'cdn-plan-secrets-'));
    repo = path.join(work, 'repo');
    await mkdir(path.join(repo, 'domains'), { recursive: true });
    await writeFile(path.join(repo, 'domains/fork.example.yaml'), domainFile(true));
  });
  after(async () => {
    await core.stop();
    await rm(work, { recursive: true, force: true });
  });

  it('plans a new domain whose secret is not set, showing the secret as (secret) in text, Markdown and JSON', async () => {
    const text = await cdn(['plan', repo]);
    expect(text.code, text.stderr).to.equal(0);
    expect(text.stdout).to.include('origin_shield_secret: "(secret)"');
    expect(text.stderr).to.include(`not set here, shown as (secret): ${VARIABLE}; apply needs them`);

    const markdown = await cdn(['plan', repo, '--markdown']);
    expect(markdown.code, markdown.stderr).to.equal(0);
    expect(markdown.stdout).to.match(/\| \+ \| domain \| <code>fork\.example<\/code> \| origin\\_shield\\_secret \| {2}\| "\(secret\)" \|/);

    const json = await cdn(['plan', repo, '--json']);
    expect(json.code, json.stderr).to.equal(0);
    const create = JSON.parse(json.stdout).domains[0].changes.find((change: Json) => change.resource === 'domain');
    expect(create.fields).to.deep.include({ field: 'origin_shield_secret', before: null, after: '(secret)' });
    expect(await domains()).to.deep.equal([]);
  });

  it('applies neither the directory nor a plan saved without the secret until it is set (exit 1, nothing written)', async () => {
    const saved = path.join(work, 'plan.json');
    const planned = await cdn(['plan', repo, '--out', saved]);
    expect(planned.code, planned.stderr).to.equal(0);
    expect(await readFile(saved, 'utf8')).to.not.include(VALUE);

    for (const target of [saved, repo]) {
      const refused = await cdn(['apply', target]);
      expect(refused.code, refused.stderr).to.equal(1);
      expect(refused.stderr).to.include(`domains/fork.example.yaml:4:11: environment variable ${VARIABLE} is not set (referenced as \${${VARIABLE}})`);
      expect(refused.stderr).to.include('nothing was applied');
    }
    const json = await cdn(['apply', saved, '--json']);
    expect(json.code).to.equal(1);
    expect(JSON.parse(json.stdout)).to.include({ status: 'rejected' });
    expect(await domains()).to.deep.equal([]);

    const applied = await cdn(['apply', saved], VALUE);
    expect(applied.code, applied.stderr).to.equal(0);
    expect(applied.stdout).to.not.include(VALUE);
    const [domain] = await domains();
    expect(domain).to.include({ domain: 'fork.example', origin_shield_secret_set: true });
  });

  it('compares a set secret as set, whether or not the variable is set, and never prints its value', async () => {
    for (const secret of [undefined, VALUE]) {
      for (const format of [[], ['--markdown'], ['--json']]) {
        const planned = await cdn(['plan', repo, '--detailed-exitcode', ...format], secret);
        expect(planned.code, `${format.join(' ')} ${planned.stderr}`).to.equal(0);
        expect(planned.stdout + planned.stderr).to.not.include(VALUE);
      }
    }
  });

  it('plans a secret added to a live domain as (none) → (secret) without the variable', async () => {
    await rm(path.join(repo, 'domains/fork.example.yaml'));
    await writeFile(path.join(repo, 'domains/plain.example.yaml'), domainFile(false).replace('fork.example', 'plain.example'));
    expect((await cdn(['apply', repo])).code).to.equal(0);
    await writeFile(path.join(repo, 'domains/plain.example.yaml'), domainFile(true).replace('fork.example', 'plain.example'));
    const planned = await cdn(['plan', repo, '--detailed-exitcode']);
    expect(planned.code, planned.stderr).to.equal(2);
    expect(planned.stdout).to.include('origin_shield_secret: (none) → "(secret)"');
    expect(planned.stderr).to.include(`not set here, shown as (secret): ${VARIABLE}; apply needs them`);
    expect((await cdn(['apply', repo])).code).to.equal(1);
  });
});

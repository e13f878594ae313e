import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { simpleGit } from 'simple-git';
import { TestCore, type Json } from '../support/core.js';

const CLI = new URL('../../bin/cdn.js', import.meta.url).pathname;
const EXAMPLE = new URL('../../config-repo-example', import.meta.url).pathname;
const TOKEN = 'cli-token';

type Result = { code: number; stdout: string; stderr: string };

// The `cdn` command as CI runs it: its own process, no stdin, the token in the environment.
function cdn(args: string[], env: Record<string, string> = {}): Promise<Result> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, CDN_API_TOKEN: TOKEN, ...env }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

// The core behind a proxy that answers 503 to any write whose body holds `marker`: a failure only the
// moment of writing can show (the core overloaded or restarting), never something a plan could catch.
async function coreRefusingWrites(target: string, marker: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (request.method !== 'GET' && body.includes(marker)) {
      response.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'service unavailable' }));
      return;
    }
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name))) as Record<string, string>;
    const answer = await fetch(`${target}${request.url}`, { method: request.method, headers, body: request.method === 'GET' ? undefined : body });
    response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('cdn plan, apply, export, status and runs as CI runs them', function () {
  this.timeout(120000);
  let core: TestCore;
  let repo: string;
  let work: string;
  const server = () => ['--url', core.url];
  const coreRefusing = (marker: string) => coreRefusingWrites(core.url, marker);
  const secrets = { SHOP_SHIELD_SECRET: 'shield-secret-value' };
  const edit = async (file: string, change: (text: string) => string) => writeFile(path.join(repo, file), change(await readFile(path.join(repo, file), 'utf8')));

  before(async () => {
    core = await TestCore.start({ CDN_API_TOKEN: TOKEN });
    core.token = TOKEN;
    work = await mkdtemp(path.join(tmpdir(), 'cdn-cli-'));
    repo = path.join(work, 'repo');
    await cp(EXAMPLE, repo, { recursive: true });
    const git = simpleGit(repo);
    await git.init(['--initial-branch=main']);
    await git.addConfig('user.email', 'ci@example.net').addConfig('user.name', 'CI');
    await git.add('.').commit('example');
  });
  after(async () => {
    await core.stop();
    await rm(work, { recursive: true, force: true });
  });

  it('exits 2 with --detailed-exitcode when there are changes, 1 with --expect-no-changes, and prints one JSON document with the safety warning', async () => {
    expect((await cdn(['plan', repo, ...server()], secrets)).code).to.equal(0);
    expect((await cdn(['plan', repo, '--detailed-exitcode', ...server()], secrets)).code).to.equal(2);
    const expecting = await cdn(['plan', repo, '--expect-no-changes', ...server()], secrets);
    expect(expecting.code).to.equal(1);
    expect(expecting.stderr).to.match(/change\(s\) planned, but --expect-no-changes was given/);
    const json = await cdn(['plan', repo, '--json', ...server()], secrets);
    const document = JSON.parse(json.stdout);
    expect(document).to.have.keys(['counts', 'safety', 'settings', 'domains', 'desired', 'live']);
    expect(document.safety).to.equal(null);
    expect(document.desired.commit).to.match(/^[0-9a-f]{40}$/);
    expect(document.desired.digest).to.match(/^[0-9a-f]{64}$/);
  });

  it('finds an unset ${VAR} and anycast routing without addresses before any write, naming the variable and the file position', async () => {
    const planned = await cdn(['plan', repo, ...server()]);
    expect(planned.code).to.equal(1);
    expect(planned.stderr).to.include('domains/shop.example.yaml:7:11: environment variable SHOP_SHIELD_SECRET is not set (referenced as ${SHOP_SHIELD_SECRET})');
    const short = await cdn(['plan', repo, ...server()], { SHOP_SHIELD_SECRET: 'short' });
    expect(short.stderr).to.include('domains/shop.example.yaml:7:11: the resolved secret has 5 characters; the API takes 8 to 512');
    await mkdir(path.join(work, 'anycast/domains'), { recursive: true });
    await writeFile(path.join(work, 'anycast/domains/bare.example.yaml'), 'domain: bare.example\nrouting: { routing_mode: anycast }\n');
    const anycast = await cdn(['apply', path.join(work, 'anycast'), ...server()]);
    expect(anycast.code).to.equal(1);
    expect(anycast.stderr).to.match(/domains\/bare\.example\.yaml:2:26: anycast routing needs an anycast address/);
    const json = await cdn(['apply', path.join(work, 'anycast'), '--json', ...server()]);
    expect(json.code).to.equal(1);
    const document = JSON.parse(json.stdout);
    expect(document.status).to.equal('rejected');
    expect(document.problems[0]).to.include({ file: 'domains/bare.example.yaml', line: 2, col: 26 });
    expect((await core.get('/api/v1/domains')).data).to.deep.equal([]);
  });

  it('applies exactly a saved plan, and refuses it once the live state changed since', async () => {
    const out = path.join(work, 'plan.json');
    expect((await cdn(['plan', repo, '--out', out, ...server()], secrets)).code).to.equal(0);
    const saved = JSON.parse(await readFile(out, 'utf8'));
    expect(saved.format).to.equal('cdn-plan/1');
    expect(saved.live.digest).to.match(/^[0-9a-f]{64}$/);
    expect(saved.desired.commit).to.match(/^[0-9a-f]{40}$/);
    const applied = await cdn(['apply', out, ...server()], secrets);
    expect(applied.code, applied.stderr).to.equal(0);
    expect((await cdn(['plan', repo, '--detailed-exitcode', ...server()], secrets)).code).to.equal(0);

    await edit('domains/blog.example.yaml', (text) => text.replace('{ type: A, name: "@", content: 198.51.100.30, proxied: true }', '{ type: A, name: "@", content: 198.51.100.30, proxied: true, ttl: 900 }'));
    expect((await cdn(['plan', repo, '--out', out, ...server()], secrets)).code).to.equal(0);
    const blog = (await core.get('/api/v1/domains')).data.find((domain: Json) => domain.domain === 'blog.example');
    const record = (await core.get(`/api/v1/domains/${blog.id}/dns/records`)).data.find((item: Json) => item.name === '@' && item.type === 'A');
    await core.patch(`/api/v1/domains/${blog.id}/dns/records/${record.id}`, { ttl: 120 });
    const stale = await cdn(['apply', out, ...server()], secrets);
    expect(stale.code).to.equal(1);
    expect(stale.stderr).to.match(/the live state changed since the plan was made .*nothing was applied/);
    const staleJson = await cdn(['apply', out, '--json', ...server()], secrets);
    expect(staleJson.code).to.equal(1);
    expect(JSON.parse(staleJson.stdout)).to.deep.include({ status: 'error' });
    expect(JSON.parse(staleJson.stdout).error).to.match(/the live state changed since the plan was made/);
    expect((await core.get(`/api/v1/domains/${blog.id}/dns/records`)).data.find((item: Json) => item.id === record.id).ttl).to.equal(120);
  });

  it('plans and applies only the domains named with --domain', async () => {
    const planned = JSON.parse((await cdn(['plan', repo, '--json', '--domain', 'blog.example', ...server()], secrets)).stdout);
    expect(planned.domains.map((domain: Json) => domain.domain)).to.deep.equal(['blog.example']);
    expect(planned.settings).to.deep.equal([]);
    const unknown = await cdn(['plan', repo, '--domain', 'nowhere.example', ...server()], secrets);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.include('--domain nowhere.example: no file in domains/ and not owned by this repository');
    expect((await cdn(['apply', repo, '--domain', 'blog.example', ...server()], secrets)).code).to.equal(0);
    expect((await cdn(['plan', repo, '--detailed-exitcode', ...server()], secrets)).code).to.equal(0);
  });

  it('exits 3 when the safety gate refuses, and 4 when a domain fails (left as it was)', async () => {
    await edit('domains/shop.example.yaml', (text) => text.replace(/records:\n(  - .*\n)+/, 'records: []\n').replace(/geo_routes:\n(  .*\n)+/, ''));
    await edit('cdn-gitops.yaml', (text) => text.replace('max_delete_percent: 25', 'max_delete_percent: 5'));
    const refused = await cdn(['apply', repo, '--json', ...server()], secrets);
    expect(refused.code, refused.stdout + refused.stderr).to.equal(3);
    expect(JSON.parse(refused.stdout)).to.include({ status: 'refused' });
    expect(JSON.parse(refused.stdout).safety).to.match(/^the plan deletes \d+ of \d+ live items/);
    await rm(path.join(repo, 'domains/shop.example.yaml'));
    await cp(path.join(EXAMPLE, 'domains/shop.example.yaml'), path.join(repo, 'domains/shop.example.yaml'));
    await edit('cdn-gitops.yaml', (text) => text.replace('max_delete_percent: 5', 'max_delete_percent: 25'));

    const status = (await core.get('/api/v1/domains')).data.find((domain: Json) => domain.domain === 'status.example');
    await core.post(`/api/v1/domains/${status.id}/dns/records`, { type: 'A', name: 'taken', content: '192.0.2.70' }, 201);
    await edit('domains/status.example.yaml', (text) => `${text}  - { type: CNAME, name: taken, content: elsewhere.example.net }\n`);
    const caught = await cdn(['apply', repo, ...server()], secrets);
    expect(caught.code, 'the plan catches what the API would refuse').to.equal(1);
    expect(caught.stderr).to.match(/a CNAME cannot share the name taken with other records; kept live beside it because prune is false: A taken 192\.0\.2\.70/);
    await edit('domains/status.example.yaml', (text) => text.replace('  - { type: CNAME, name: taken, content: elsewhere.example.net }\n', '  - { type: TXT, name: taken, content: refused-by-the-core }\n'));
    const refusing = await coreRefusing('refused-by-the-core');
    try {
      const failed = await cdn(['apply', repo, '--url', refusing.url], secrets);
      expect(failed.code, failed.stdout + failed.stderr).to.equal(4);
      expect(failed.stdout).to.match(/FAILED status\.example, left as it was: .*answered 503/);
    } finally {
      await refusing.close();
    }
    expect((await core.get(`/api/v1/domains/${status.id}/dns/records`)).data.map((record: Json) => record.content)).to.not.include('refused-by-the-core');
    await edit('domains/status.example.yaml', (text) => text.replace('  - { type: TXT, name: taken, content: refused-by-the-core }\n', ''));
  });

  it('exports live domains as files that validate and plan no change, so prune deletes nothing', async () => {
    const status = (await core.get('/api/v1/domains')).data.find((domain: Json) => domain.domain === 'status.example');
    const manual = await core.createDomain('manual.example');
    await core.post(`/api/v1/domains/${manual.id}/dns/records`, { type: 'AAAA', name: 'v6', content: '2001:db8::5', ttl: 600 }, 201);
    await core.post(`/api/v1/domains/${manual.id}/origins`, { host: 'origin.manual.example', weight: 40 }, 201);
    await core.post(`/api/v1/domains/${manual.id}/waf-rules`, { name: 'managed', signatures: ['xss', 'sqli'] }, 201);
    const target = path.join(work, 'exported');
    const exported = await cdn(['export', target, ...server()]);
    expect(exported.code, exported.stderr).to.equal(0);
    expect(exported.stdout).to.include('wrote domains/manual.example.yaml');
    expect(exported.stdout).to.include('ORIGIN_SHIELD_SECRET_SHOP_EXAMPLE');
    const text = await readFile(path.join(target, 'domains/manual.example.yaml'), 'utf8');
    expect(text.split('\n')[0]).to.match(/^# yaml-language-server: \$schema=.*schemas\/gitops\/domain\.schema\.json$/);
    expect(text).to.include('{ type: AAAA, name: v6, content: 2001:db8::5, ttl: 600 }');
    expect((await cdn(['validate', target])).code).to.equal(0);
    const plan = await cdn(['plan', target, '--detailed-exitcode', ...server()]);
    expect(plan.code, plan.stdout + plan.stderr).to.equal(0);
    expect((await cdn(['export', target, '--domain', 'manual.example', ...server()])).stderr).to.include('domains/manual.example.yaml exists; nothing was overwritten');
    expect(status).to.not.equal(undefined);
  });

  it('prints the controller state and runs from the API', async () => {
    await core.post('/api/v1/gitops/runs', { repo: 'https://git.example/cdn.git', branch: 'main', commit_sha: 'a'.repeat(40), trigger: 'webhook', status: 'refused', started_at: 1_700_000_000, finished_at: 1_700_000_001, error: 'the plan deletes 9 of 10 live items (90%)' }, 201);
    const status = await cdn(['status', ...server()]);
    expect(status.stdout).to.include('https://git.example/cdn.git (main): refused');
    expect(status.stdout).to.include('error      the plan deletes 9 of 10 live items (90%)');
    const runs = JSON.parse((await cdn(['runs', '--json', ...server()])).stdout);
    expect(runs.runs[0]).to.include({ status: 'refused', commit_sha: 'a'.repeat(40) });
    const accepted = await cdn(['accept-plan', '--repo', 'https://git.example/cdn.git', '--commit', 'aaaaaaaa', '--reason', 'retiring the old zone', ...server()]);
    expect(accepted.code, accepted.stderr).to.equal(0);
    expect((await core.get('/api/v1/audit?limit=1')).data[0]).to.include({ action: 'gitops.accept_refused_plan', target_id: 'a'.repeat(40) });
  });

  it('names the URL it could not reach, and refuses a missing or empty directory', async () => {
    const unreachable = await cdn(['plan', repo, '--url', 'http://127.0.0.1:9'], secrets);
    expect(unreachable.code).to.equal(1);
    expect(unreachable.stderr).to.match(/could not reach the core API at http:\/\/127\.0\.0\.1:9\/api\/v1\/export\/domains/);
    const unreachableJson = await cdn(['plan', repo, '--json', '--url', 'http://127.0.0.1:9'], secrets);
    expect(JSON.parse(unreachableJson.stdout).error).to.match(/could not reach the core API at http:\/\/127\.0\.0\.1:9/);
    const missing = await cdn(['validate', path.join(work, 'nothing-here')]);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.include('does not exist');
    await mkdir(path.join(work, 'empty'));
    const empty = await cdn(['validate', path.join(work, 'empty')]);
    expect(empty.code).to.equal(1);
    expect(empty.stderr).to.include('holds no desired state');
  });
});

import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { TestCore, type Json } from '../support/core.js';

const execFileAsync = promisify(execFile);
const CLI = new URL('../../bin/cdn.js', import.meta.url).pathname;

type Outcome = { code: number; stdout: string; stderr: string };

// A domain with records made through the API that its file does not list, kept by prune: false:
// what `cdn plan` accepts beside them, `cdn apply` applies; what the API would refuse, the plan refuses.
describe('cdn plan checks the records it writes against the live records it keeps', function () {
  this.timeout(90000);
  let core: TestCore;
  let dir: string;
  let domainId: string;

  const cdn = async (...args: string[]): Promise<Outcome> => {
    try {
      const { stdout, stderr } = await execFileAsync(process.execPath, [CLI, ...args, '--url', core.url, '--token', 'kept-token'], { env: { ...process.env, CDN_LOG_LEVEL: 'silent' } });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };
  const writeDomain = (records: string[], more: string[] = []) =>
    writeFile(path.join(dir, 'domains/kept.example.yaml'), ['domain: kept.example', 'policy: { prune: false }', 'records:', ...records.map((record) => `  - ${record}`), ...more, ''].join('\n'));
  const liveRecords = async () => ((await core.get(`/api/v1/domains/${domainId}/dns/records`)).data as Json[]).map((record) => `${record.type} ${record.name} ${record.content}`).sort();

  before(async () => {
    core = await TestCore.start({ CDN_API_TOKEN: 'kept-token' });
    core.token = 'kept-token';
    dir = await mkdtemp(path.join(tmpdir(), 'cdn-kept-'));
    await mkdir(path.join(dir, 'domains'));
    domainId = (await core.createDomain('kept.example')).id;
    for (const record of [
      { type: 'A', name: '@', content: '192.0.2.1' },
      { type: 'A', name: 'www', content: '192.0.2.10' },
      { type: 'CNAME', name: 'cdn', content: 'edge.provider.example.net' },
      { type: 'MX', name: '@', content: '10 mx.provider.example.net' },
    ]) {
      await core.post(`/api/v1/domains/${domainId}/dns/records`, record, 201);
    }
    await core.post(`/api/v1/domains/${domainId}/origins`, { host: 'origin.kept.example.net' }, 201);
    await core.post(`/api/v1/domains/${domainId}/redirects`, { name: 'feed', match: { paths: [{ kind: 'exact', value: '/rss.xml' }] }, target: '/feed.xml' }, 201);
  });
  after(async () => {
    await core?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const MADE_BY_HAND = ['A @ 192.0.2.1', 'A www 192.0.2.10', 'CNAME cdn edge.provider.example.net', 'MX @ 10 mx.provider.example.net'];

  it('refuses a CNAME added beside a record it keeps, in plan and apply, and writes nothing', async () => {
    await writeDomain(['{ type: A, name: "@", content: 192.0.2.1 }', '{ type: CNAME, name: www, content: www.elsewhere.example.net }']);
    const plan = await cdn('plan', dir);
    expect(plan.code).to.equal(1);
    expect(plan.stderr).to.include(
      'domains/kept.example.yaml:5:5: a CNAME cannot share the name www with other records; kept live beside it because prune is false: A www 192.0.2.10\n',
    );
    expect(plan.stderr).to.include('the API would refuse this plan; nothing was planned');
    const apply = await cdn('apply', dir);
    expect(apply.code).to.equal(1);
    expect(await liveRecords()).to.deep.equal(MADE_BY_HAND);
    const json = JSON.parse((await cdn('plan', dir, '--json')).stdout);
    expect(json.status).to.equal('rejected');
    expect(json.problems).to.have.length(1);
  });

  it('refuses any record added beside a CNAME it keeps, and a CNAME at the apex beside the records kept there', async () => {
    await writeDomain(['{ type: TXT, name: cdn, content: verification=1 }', '{ type: CNAME, name: "@", content: apex.elsewhere.example.net, proxied: true }']);
    const plan = await cdn('plan', dir);
    expect(plan.code).to.equal(1);
    expect(plan.stderr).to.include('domains/kept.example.yaml:4:5: cdn already has a CNAME record, which cannot share its name; kept live beside it because prune is false: CNAME cdn edge.provider.example.net\n');
    expect(plan.stderr).to.include('domains/kept.example.yaml:5:5: a CNAME cannot share the name @ with other records; kept live beside it because prune is false: A @ 192.0.2.1, MX @ 10 mx.provider.example.net\n');
    expect((await cdn('apply', dir)).code).to.equal(1);
    expect(await liveRecords()).to.deep.equal(MADE_BY_HAND);
  });

  // Origins and rules are unique by identity and name, which is how the plan matches them: one named
  // like a live one (the host in capitals, the same rule name) is that item, updated, never a second one.
  it('applies what it plans beside the items it keeps (exit 0)', async () => {
    await writeDomain(
      ['{ type: A, name: "@", content: 192.0.2.1 }', '{ type: A, name: www, content: 192.0.2.11 }', '{ type: CNAME, name: shop, content: shop.elsewhere.example.net }', '{ type: TXT, name: "@", content: v=spf1 -all }'],
      ['origins:', '  - { host: ORIGIN.Kept.Example.Net, weight: 50 }', 'redirects:', '  - { name: feed, match: { paths: [{ kind: exact, value: /rss.xml }] }, target: /feed.atom }'],
    );
    const plan = await cdn('plan', dir, '--detailed-exitcode');
    expect(plan.code, plan.stderr).to.equal(2);
    expect(plan.stdout).to.include('= record CNAME cdn edge.provider.example.net (not in git; kept because prune is false)');
    const apply = await cdn('apply', dir);
    expect(apply.code, apply.stderr).to.equal(0);
    expect(await liveRecords()).to.deep.equal([...MADE_BY_HAND, 'A www 192.0.2.11', 'CNAME shop shop.elsewhere.example.net', 'TXT @ v=spf1 -all'].sort());
    expect((await core.get(`/api/v1/domains/${domainId}/origins`)).data.map((origin: Json) => [origin.host, origin.weight])).to.deep.equal([['origin.kept.example.net', 50]]);
    expect((await core.get(`/api/v1/domains/${domainId}/redirects`)).data.map((rule: Json) => [rule.name, rule.target])).to.deep.equal([['feed', '/feed.atom']]);
    expect((await cdn('plan', dir, '--detailed-exitcode')).code).to.equal(0);
  });
});

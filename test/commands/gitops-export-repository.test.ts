import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { runCdn } from '../support/cdn-cli.js';
import { TestCore } from '../support/core.js';

const TOKEN = 'export-token';
const TOOL_SCHEMAS = new URL('../../schemas/gitops/', import.meta.url).pathname;
const MODELINE = /^# yaml-language-server: \$schema=(.+)$/;

// `cdn export` makes a repository that stands on its own: the schemas its modelines name are inside it,
// and what it leaves out as defaults loads back as the same desired state.
describe('cdn export writes a self-contained repository without defaults, that plans no change', function () {
  this.timeout(120000);
  let core: TestCore;
  let dir: string;
  let target: string;
  const cdn = (args: string[]) => runCdn([...args, ...(args[0] === 'validate' ? [] : ['--url', core.url])], { CDN_API_TOKEN: TOKEN });
  const domainId = async (apex: string): Promise<string> => (await core.get('/api/v1/domains')).data.find((domain: { domain: string }) => domain.domain === apex).id;
  const routingOf = async (apex: string) => (await core.get(`/api/v1/domains/${await domainId(apex)}/routing`)).data;

  before(async () => {
    core = await TestCore.start({ CDN_API_TOKEN: TOKEN });
    core.token = TOKEN;
    dir = await mkdtemp(path.join(tmpdir(), 'cdn-export-repository-'));
    target = path.join(dir, 'exported');
    const plain = await core.createDomain('plain.example');
    await core.post(`/api/v1/domains/${plain.id}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.10' }, 201);
    const dnsOnly = await core.createDomain('dns-only.example');
    await core.patch(`/api/v1/domains/${dnsOnly.id}/routing`, { routing_mode: 'dns_only' });
    const health = await core.createDomain('health.example');
    await core.patch(`/api/v1/domains/${health.id}/routing`, { routing_mode: 'geo', geo_health_port: 8080 });
  });
  after(async () => {
    await core?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the schemas into the repository and points every modeline at them', async () => {
    const exported = await cdn(['export', target]);
    expect(exported.code, exported.stderr).to.equal(0);
    expect(exported.stdout).to.include('wrote schemas/domain.schema.json, schemas/repository.schema.json, schemas/settings.schema.json');
    for (const file of await readdir(path.join(target, 'schemas'))) {
      expect(await readFile(path.join(target, 'schemas', file), 'utf8'), file).to.equal(await readFile(path.join(TOOL_SCHEMAS, file), 'utf8'));
    }
    for (const file of await readdir(path.join(target, 'domains'))) {
      const [modeline] = (await readFile(path.join(target, 'domains', file), 'utf8')).split('\n');
      const schema = modeline.match(MODELINE)?.[1];
      expect(schema, `${file}: ${modeline}`).to.equal('../schemas/domain.schema.json');
      expect(await readFile(path.join(target, 'domains', schema!), 'utf8')).to.equal(await readFile(path.join(TOOL_SCHEMAS, 'domain.schema.json'), 'utf8'));
    }
  });

  it('leaves the default routing out of every file, and the exported repository validates and plans no change', async () => {
    const text = (apex: string) => readFile(path.join(target, 'domains', `${apex}.yaml`), 'utf8');
    expect(await text('plain.example')).to.not.include('routing');
    expect(await text('dns-only.example')).to.include('routing:\n  routing_mode: dns_only\n');
    expect(await text('health.example')).to.include('routing:\n  geo_health_port: 8080\n').and.not.include('routing_mode');
    expect((await cdn(['validate', target])).code).to.equal(0);
    const plan = await cdn(['plan', target, '--detailed-exitcode']);
    expect(plan.code, plan.stdout + plan.stderr).to.equal(0);
    expect(plan.stdout).to.include('no changes');
  });

  it('loads a file without routing as geo routing, so what the export left out is still what git says', async () => {
    await core.patch(`/api/v1/domains/${await domainId('plain.example')}/routing`, { routing_mode: 'dns_only' });
    const drifted = await cdn(['plan', target, '--detailed-exitcode']);
    expect(drifted.code).to.equal(2);
    expect(drifted.stdout).to.include('  ~ routing plain.example\n      routing_mode: "dns_only" → "geo"\n');
    expect((await cdn(['apply', target])).code).to.equal(0);
    expect((await routingOf('plain.example')).routing_mode).to.equal('geo');

    // A hand-written file without routing: the domain is created with the API's routing (nothing more to write), and kept at it.
    const repository = path.join(dir, 'hand-written');
    await mkdir(path.join(repository, 'domains'), { recursive: true });
    await writeFile(path.join(repository, 'domains/new.example.yaml'), 'domain: new.example\n');
    const created = await cdn(['plan', repository, '--detailed-exitcode']);
    expect(created.code).to.equal(2);
    expect(created.stdout).to.equal('new.example (new domain)\n  + domain new.example\n\ncreates=1 updates=0 deletes=0 unchanged=0\n');
    expect((await cdn(['apply', repository])).code).to.equal(0);
    await core.patch(`/api/v1/domains/${await domainId('new.example')}/routing`, { routing_mode: 'anycast', anycast_ipv4: '203.0.113.7' });
    const changed = await cdn(['plan', repository, '--detailed-exitcode']);
    expect(changed.code).to.equal(2);
    expect(changed.stdout).to.include('  ~ routing new.example\n      routing_mode: "anycast" → "geo"\n');
  });
});

import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ApiClient } from '../../src/gitops/api-client.js';
import { sendBatches } from '../../src/gitops/apply.js';
import { applyPlan, buildPlan } from '../../src/gitops/engine.js';
import { loadDesiredState } from '../../src/gitops/load.js';
import { planJson, planMarkdown, planText } from '../../src/gitops/print.js';
import { TestCore, type Json } from '../support/core.js';

const EXAMPLE = new URL('../../config-repo-example', import.meta.url).pathname;
const ENV = { ...process.env, SHOP_SHIELD_SECRET: 'shield-secret-value' };

describe('plan and apply against a live core', function () {
  this.timeout(60000);
  let core: TestCore;
  let repo: string;
  let client: ApiClient;

  const plan = async () => buildPlan(client, await loadDesiredState(repo));
  const apply = async () => {
    const planned = await plan();
    return { planned, results: await applyPlan(client, planned, ENV) };
  };
  const edit = async (file: string, change: (text: string) => string) => {
    const target = path.join(repo, file);
    await writeFile(target, change(await readFile(target, 'utf8')));
  };
  const domainId = async (apex: string) => (await core.get('/api/v1/domains?limit=500')).data.find((domain: Json) => domain.domain === apex).id;

  before(async () => {
    core = await TestCore.start({ CDN_API_TOKEN: 'gitops-token' });
    core.token = 'gitops-token';
    client = new ApiClient(core.url, 'gitops-token');
    repo = await mkdtemp(path.join(tmpdir(), 'cdn-repo-'));
    await cp(EXAMPLE, repo, { recursive: true });
  });
  after(async () => {
    await core.stop();
    await rm(repo, { recursive: true, force: true });
  });

  it('creates every domain of the example repository, then finds nothing to change', async () => {
    const { planned, results } = await apply();
    expect(planned.plan.domains.map((domain) => domain.action)).to.deep.equal(['create', 'create', 'create', 'create', 'create']);
    expect(results.every((result) => result.ok), JSON.stringify(results.filter((result) => !result.ok))).to.equal(true);
    const again = await plan();
    expect(again.plan.counts).to.include({ creates: 0, updates: 0, deletes: 0 });
    expect(planText(again.plan)).to.match(/^no changes\ncreates=0 updates=0 deletes=0 unchanged=\d+\n$/);
  });

  it('made the API match the files: records, geo routes, origins, rules, routing, cache, settings and the write-only secret', async () => {
    const shop = await domainId('shop.example');
    const records = (await core.get(`/api/v1/domains/${shop}/dns/records`)).data;
    expect(records).to.have.length(9);
    const api = records.find((record: Json) => record.name === 'api');
    expect(api.routing_policy).to.equal('geo');
    expect((await core.get(`/api/v1/domains/${shop}/dns/records/${api.id}/geo-routes`)).data).to.have.length(3);
    expect((await core.get(`/api/v1/domains/${shop}/origins`)).data.map((origin: Json) => origin.weight)).to.deep.equal([70, 30, 100]);
    const waf = (await core.get(`/api/v1/domains/${shop}/waf-rules`)).data.find((rule: Json) => rule.name === 'managed signatures');
    expect(waf.signatures).to.have.members(['sqli', 'xss', 'path_traversal']);
    expect((await core.get(`/api/v1/domains/${shop}/cache/settings`)).data).to.include({ default_edge_ttl_seconds: 600, customised: true });
    expect((await core.get(`/api/v1/domains/${shop}`)).data.origin_shield_secret_set).to.equal(true);
    expect((await core.get(`/api/v1/domains/${shop}/ssl`)).data.settings).to.include({ mode: 'strict', always_https: true, hsts_enabled: true, customised: true });
    expect((await core.db.domain.findFirstOrThrow({ where: { domain: 'shop.example' } })).origin_shield_secret).to.equal('shield-secret-value');
    expect((await core.get('/api/v1/settings/anycast')).data.anycast_ipv4).to.deep.equal(['203.0.113.10', '203.0.113.11']);
    expect((await core.get(`/api/v1/domains/${await domainId('api.example')}/routing`)).data.routing_mode).to.equal('anycast');
  });

  it('plans field-level updates, creates and deletes for edited files, and converges on apply', async () => {
    await edit('domains/blog.example.yaml', (text) =>
      text
        .replace('{ type: A, name: "@", content: 198.51.100.30, proxied: true }', '{ type: A, name: "@", content: 198.51.100.30, proxied: true, ttl: 600 }')
        .replace('  - { type: CNAME, name: media, content: media-bucket.storage.example.net, proxied: true }\n', '')
        .replace('  - name: feed\n', '  - name: rss feed\n'),
    );
    const { planned } = await apply();
    const blog = planned.plan.domains.find((domain) => domain.domain === 'blog.example')!;
    const summary = blog.changes.map((change) => `${change.action} ${change.resource} ${change.key}`);
    expect(summary).to.include.members(['update record A @ 198.51.100.30', 'delete record CNAME media media-bucket.storage.example.net', 'create redirects rss feed', 'delete redirects feed']);
    expect(blog.changes.find((change) => change.action === 'update')!.fields).to.deep.equal([{ field: 'ttl', before: 300, after: 600 }]);
    expect((await plan()).plan.counts).to.include({ creates: 0, updates: 0, deletes: 0 });
  });

  it('moves the geo routes to the new record when a geo-routed record changes its content', async () => {
    await edit('domains/shop.example.yaml', (text) => text.replace('{ type: A, name: api, content: 198.51.100.20, proxied: true, ttl: 60 }', '{ type: A, name: api, content: 198.51.100.25, proxied: true, ttl: 60 }'));
    const { results } = await apply();
    expect(results.find((result) => result.domain === 'shop.example')!.ok, JSON.stringify(results)).to.equal(true);
    const shop = await domainId('shop.example');
    const api = (await core.get(`/api/v1/domains/${shop}/dns/records`)).data.find((record: Json) => record.name === 'api');
    expect(api).to.include({ content: '198.51.100.25', routing_policy: 'geo' });
    expect((await core.get(`/api/v1/domains/${shop}/dns/records/${api.id}/geo-routes`)).data).to.have.length(3);
    expect((await plan()).plan.counts).to.include({ creates: 0, updates: 0, deletes: 0 });
  });

  it('converges in one apply when one field of an origin with non-default settings changes', async () => {
    await edit('domains/shop.example.yaml', (text) => text.replace('{ host: origin-eu.shop.example.net, role: primary, weight: 70,', '{ host: origin-eu.shop.example.net, role: primary, weight: 75,'));
    const { planned } = await apply();
    const shop = planned.plan.domains.find((domain) => domain.domain === 'shop.example')!;
    expect(shop.changes.map((change) => [change.action, change.key, change.fields])).to.deep.equal([['update', 'https://origin-eu.shop.example.net:443', [{ field: 'weight', before: 70, after: 75 }]]]);
    expect((await plan()).plan.counts).to.include({ creates: 0, updates: 0, deletes: 0 });
    const origin = (await core.get(`/api/v1/domains/${await domainId('shop.example')}/origins`)).data.find((item: Json) => item.host === 'origin-eu.shop.example.net');
    expect(origin).to.include({ weight: 75, monitored: true, health_check_path: '/healthz' });
  });

  it('shows an imperative change to a git-owned item in the plan and reverts it on apply', async () => {
    const docs = await domainId('docs.example');
    const origin = (await core.get(`/api/v1/domains/${docs}/origins`)).data[0];
    await core.patch(`/api/v1/domains/${docs}/origins/${origin.id}`, { weight: 5 });
    const drifted = (await plan()).plan.domains.find((domain) => domain.domain === 'docs.example')!;
    expect(drifted.changes).to.deep.equal([{ action: 'update', resource: 'origin', key: 'https://docs-site.pages.example.net:443', fields: [{ field: 'weight', before: 5, after: 100 }], desired: drifted.changes[0].desired }]);
    await apply();
    expect((await core.get(`/api/v1/domains/${docs}/origins`)).data[0].weight).to.equal(100);
  });

  it('keeps live items that a prune: false domain does not list, and never touches domains outside the repository', async () => {
    const status = await domainId('status.example');
    await core.post(`/api/v1/domains/${status}/dns/records`, { type: 'TXT', name: 'manual', content: 'added by hand' }, 201);
    const foreign = await core.createDomain('foreign.example');
    const planned = await plan();
    expect(planned.plan.domains.find((domain) => domain.domain === 'status.example')!.action).to.equal('unchanged');
    expect(planned.plan.domains.map((domain) => domain.domain)).to.not.include('foreign.example');
    await apply();
    expect((await core.get(`/api/v1/domains/${status}/dns/records`)).data.map((record: Json) => record.name)).to.include('manual');
    await core.get(`/api/v1/domains/${foreign.id}`);
  });

  it('applies domains independently: one failing domain does not stop the others', async () => {
    // docs.example fails at apply time: its new secret names an environment variable that is not set.
    await edit('domains/docs.example.yaml', (text) => text.replace('domain: docs.example', 'domain: docs.example\norigin_shield:\n  secret: ${DOCS_SECRET_NOT_SET}'));
    await edit('domains/blog.example.yaml', (text) => text.replace('ttl: 600', 'ttl: 900'));
    const { planned, results } = await apply();
    expect(planned.problems.map((problem) => problem.message)).to.deep.equal(['environment variable DOCS_SECRET_NOT_SET is not set (referenced as ${DOCS_SECRET_NOT_SET})']);
    const docs = results.find((result) => result.domain === 'docs.example')!;
    expect(docs.ok).to.equal(false);
    expect(docs.error).to.equal('environment variable DOCS_SECRET_NOT_SET is not set (referenced as ${DOCS_SECRET_NOT_SET})');
    expect(results.find((result) => result.domain === 'blog.example')!.ok).to.equal(true);
    const blog = await domainId('blog.example');
    expect((await core.get(`/api/v1/domains/${blog}/dns/records`)).data.find((record: Json) => record.name === '@').ttl).to.equal(900);
  });

  it('applies a domain whole or not at all: a write the API refuses leaves the domain exactly as it was', async () => {
    const status = await domainId('status.example');
    await core.post(`/api/v1/domains/${status}/dns/records`, { type: 'A', name: 'conflict', content: '192.0.2.60' }, 201);
    await edit('domains/status.example.yaml', (text) =>
      text.replace('{ type: TXT, name: "@", content: "status page, do not proxy" }', '{ type: TXT, name: "@", content: "status page, do not proxy", ttl: 120 }\n  - { type: CNAME, name: conflict, content: elsewhere.example.net }\norigins:\n  - { host: status-origin.example.net }'),
    );
    const liveBefore = (await core.get(`/api/v1/domains/${status}/dns/records`)).data;
    const { results } = await apply();
    const failed = results.find((result) => result.domain === 'status.example')!;
    expect(failed.ok).to.equal(false);
    expect(failed.error).to.match(/operation \d+ \(POST \/api\/v1\/domains\/[^/]+\/dns\/records\): a CNAME cannot share the name conflict/);
    expect((await core.get(`/api/v1/domains/${status}/dns/records`)).data).to.deep.equal(liveBefore);
    expect((await core.get(`/api/v1/domains/${status}/origins`)).data).to.deep.equal([]);
    await edit('domains/status.example.yaml', (text) => text.replace(', ttl: 120 }\n  - { type: CNAME, name: conflict, content: elsewhere.example.net }\norigins:\n  - { host: status-origin.example.net }', ' }'));
  });

  it('sends a change set past the batch limits as consecutive batches, filling in the ids earlier ones created', async () => {
    const operations = [
      { ref: 'd', method: 'POST', path: '/api/v1/domains', body: { domain: 'parts.example' } },
      { ref: 'www', method: 'POST', path: '/api/v1/domains/@{d}/dns/records', body: { type: 'A', name: 'www', content: '192.0.2.1' } },
      { method: 'PUT', path: '/api/v1/domains/@{d}/dns/records/@{www}/geo-routes', body: { routes: [{ scope: 'default', target: '192.0.2.2' }] } },
      { method: 'POST', path: '/api/v1/domains/@{d}/origins', body: { host: 'origin.parts.example' } },
    ] as const;
    expect(await sendBatches(client, [...operations], { operations: 2, bytes: 1 << 20 })).to.equal(4);
    const id = await domainId('parts.example');
    const [record] = (await core.get(`/api/v1/domains/${id}/dns/records`)).data;
    expect((await core.get(`/api/v1/domains/${id}/dns/records/${record.id}/geo-routes`)).data.map((route: Json) => route.target)).to.deep.equal(['192.0.2.2']);
    const refused = [{ method: 'POST', path: `/api/v1/domains/${id}/origins`, body: { host: 'second.parts.example' } }, { method: 'POST', path: `/api/v1/domains/${id}/origins`, body: { host: 'origin.parts.example' } }] as const;
    const error = await sendBatches(client, [...refused], { operations: 1, bytes: 1 << 20 }).catch((failure: Error) => failure);
    expect(String(error)).to.match(/part 2 of 2 \(1 writes before it applied\): .*422/);
    await core.delete(`/api/v1/domains/${id}`);
  });

  it('refuses a plan that deletes more than max_delete_percent of the live items', async () => {
    await edit('domains/shop.example.yaml', (text) => text.replace(/records:\n(  - .*\n)+/, 'records: []\n').replace(/geo_routes:\n(  .*\n)+/, ''));
    await edit('cdn-gitops.yaml', (text) => text.replace('max_delete_percent: 25', 'max_delete_percent: 5'));
    const planned = await plan();
    expect(planned.safety).to.match(/^the plan deletes \d+ of \d+ live items \(\d+%\), more than max_delete_percent 5%/);
    await edit('cdn-gitops.yaml', (text) => text.replace('max_delete_percent: 5', 'max_delete_percent: 25'));
  });

  it('prints the plan as JSON and Markdown without secrets', async () => {
    await edit('domains/shop.example.yaml', (text) => text.replace('display_name: Example Shop', 'display_name: Example Shop 2'));
    const planned = await plan();
    const json = JSON.parse(planJson(planned.plan));
    expect(json.counts.updates).to.be.greaterThan(0);
    expect(planMarkdown(planned.plan)).to.match(/^### CDN plan\n/);
    const markdown = planMarkdown(planned.plan);
    expect(markdown, markdown).to.include('| ~ | domain | <code>shop.example</code> | display\\_name | "Example Shop" | "Example Shop 2" |');
    for (const output of [planText(planned.plan), planJson(planned.plan), planMarkdown(planned.plan)]) expect(output).to.not.include('shield-secret-value');
  });
});

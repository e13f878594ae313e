import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { toHttpError } from '../../src/http/error-handler.js';
import { signedHeaders } from '../../src/shared/signing.js';
import { TestCore, type Json } from '../support/core.js';

const EDGE_TOKEN = 'cdnedge_bad-input-tests-token-0123456789';
const ADMIN = { username: 'admin', password: 'admin-password-1' };
const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

// The cases of the bad-input sweep one by one, with the answer each must get.
describe('bad input', () => {
  let core: TestCore;
  let domain: Json;
  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN, CDN_BOOTSTRAP_ADMIN_USER: 'true', CDN_BOOTSTRAP_ADMIN_USERNAME: ADMIN.username, CDN_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password, CDN_CONFIG_SNAPSHOT_HISTORY_ENABLED: 'true' });
    domain = await core.createDomain('bad-input.example');
  });
  after(async () => {
    await core.stop();
  });

  const edgePost = async (path: string, body: string) => {
    const headers = signedHeaders({ token: EDGE_TOKEN, edgeId: 'edge-1', method: 'POST', pathWithQuery: path, body });
    const response = await fetch(`${core.url}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
    return { status: response.status, body: (await response.json()) as Json };
  };

  it('answers a malformed percent-escape in a path with 400', async () => {
    const error = await core.get('/api/v1/domains/%ZZ', 400);
    expect(error).to.deep.equal({ error: 'malformed path', detail: 'a path segment holds an invalid percent-escape' });
  });

  for (const encoding of ['gzip', 'deflate', 'br']) {
    it(`answers a plain body labelled Content-Encoding: ${encoding} with 400 and changes nothing`, async () => {
      const before = await core.rowCounts();
      const error = await core.call('POST', '/api/v1/domains', undefined, 400, { rawBody: '{"domain":"encoded.example"}', headers: { 'content-type': 'application/json', 'content-encoding': encoding } });
      expect(error.error).to.equal('unreadable request body');
      expect(error.detail).to.match(/does not match its Content-Encoding/);
      expect(await core.rowCounts()).to.deep.equal(before);
    });
  }

  it('still reads a body that is compressed as it says', async () => {
    const response = await fetch(`${core.url}/api/v1/domains`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync('{"domain":"gzipped.example"}') });
    expect(response.status).to.equal(201);
  });

  it('refuses a NUL in the login username with 422 naming the field, without credentials', async () => {
    const before = await core.rowCounts();
    const error = await core.post('/api/v1/admin/login', { username: 'ad\u0000min', password: ADMIN.password }, 422);
    expect(error).to.include({ field: 'username' });
    expect(error.detail).to.match(/NUL/);
    expect(await core.rowCounts()).to.deep.equal(before);
  });

  it('refuses a NUL in a path id and in a query id with 422 naming them', async () => {
    expect((await core.get('/api/v1/domains/abc%00def', 422)).field).to.equal('domainId');
    expect((await core.get(`/api/v1/domains/${domain.id}/cache/purge-requests/x%00`, 422)).field).to.equal('requestId');
    expect((await core.get('/api/v1/audit?domain_id=abc%00def', 422)).field).to.equal('domain_id');
  });

  it('refuses a NUL in a nested string field and a rule pattern with 422 naming the field and changes nothing', async () => {
    const before = await core.rowCounts();
    expect((await core.post('/api/v1/domains', { domain: 'nul.example', display_name: 'a\u0000b' }, 422)).field).to.equal('display_name');
    const rule = { name: 'r', target: '/x', match: { paths: [{ kind: 'regex', value: '^/a\u0000' }] } };
    expect((await core.post(`/api/v1/domains/${domain.id}/redirects`, rule, 422)).field).to.equal('match.paths.0.value');
    expect(await core.rowCounts()).to.deep.equal(before);
  });

  it('refuses a NUL in an object key and a lone surrogate in a string with 422', async () => {
    const settings = await core.post('/api/v1/settings/validate', { ['ana\u0000lytics']: {} }, 422);
    expect(settings.detail).to.match(/NUL/);
    const surrogate = await core.call('POST', '/api/v1/domains', undefined, 422, { rawBody: '{"domain":"s.example","display_name":"a\\ud800b"}' });
    expect(surrogate).to.include({ field: 'display_name' });
  });

  it('refuses a body nested 20,000 levels deep with 400 and writes no audit event', async () => {
    const before = await core.rowCounts();
    const error = await core.call('PATCH', `/api/v1/domains/${domain.id}`, undefined, 400, { rawBody: deep(20000) });
    expect(error.error).to.equal('request body nested too deeply');
    expect(await core.rowCounts()).to.deep.equal(before);
  });

  it('accepts a body nested 64 levels deep and refuses 65', async () => {
    const chain = (levels: number): object => (levels === 1 ? {} : { a: chain(levels - 1) });
    const run = { repo: 'https://git.example/r.git', trigger: 'manual', status: 'applied', started_at: 1 };
    await core.post('/api/v1/gitops/runs', { ...run, counts: chain(63) }, 201);
    await core.post('/api/v1/gitops/runs', { ...run, counts: chain(64) }, 400);
  });

  it('keeps /gitops/status answering when a recorded run holds odd per-domain results', async () => {
    const run = { repo: 'https://git.example/odd.git', trigger: 'manual', status: 'applied', started_at: 1, commit_sha: 'a'.repeat(40) };
    const odd = [{ domain: 'odd.example', ok: true, applied: 'lots' }, { domain: 'odd.example', ok: true, applied: 1e308 }, 'a string', [1], { ok: 'true', applied: 2 }, null];
    await core.post('/api/v1/gitops/runs', { ...run, domains: odd, managed: [{ domain: 'odd.example', file: 'domains/odd.example.yaml' }] }, 201);
    const status = (await core.get('/api/v1/gitops/status')).data.repos.find((repo: { repo: string }) => repo.repo === run.repo);
    expect(status.managed).to.deep.equal([{ domain: 'odd.example', file: 'domains/odd.example.yaml', commit: 'a'.repeat(40) }]);
  });

  it('refuses timestamps and versions beyond their columns with 422 naming the field', async () => {
    const run = { repo: 'https://git.example/r.git', trigger: 'manual', status: 'applied', started_at: 1 };
    expect((await core.post('/api/v1/gitops/runs', { ...run, started_at: 1e308 }, 422)).field).to.equal('started_at');
    expect((await core.post('/api/v1/gitops/runs', { ...run, finished_at: 2 ** 63 }, 422)).field).to.equal('finished_at');
    expect((await core.post('/api/v1/config/snapshots/diff', { from_version: 2 ** 63, to_version: 1 }, 422)).field).to.equal('from_version');
    expect((await core.post('/api/v1/config/snapshots/diff', { from_version: 1, to_version: 1e308 }, 422)).field).to.equal('to_version');
    for (const path of ['/api/v1/security/summary', '/api/v1/usage/summary', '/api/v1/analytics/cache', `/api/v1/domains/${domain.id}/analytics/summary`]) {
      expect((await core.get(`${path}?to=999999999999`, 422)).field, path).to.equal('to');
    }
  });

  it('refuses a heartbeat config_version beyond its column with 422 naming the field', async () => {
    await edgePost('/api/v1/edge/register', JSON.stringify({ edge_id: 'edge-1' }));
    for (const version of ['1e308', '9223372036854775808']) {
      const answer = await edgePost('/api/v1/edge/heartbeat', `{"edge_id":"edge-1","config_version":${version}}`);
      expect(answer.status).to.equal(422);
      expect(answer.body.field).to.equal('config_version');
    }
  });

  it('answers values PostgreSQL or Prisma refuse (22021, 22P05, 22003, 22008, out-of-range dates) with 422, not 500', async () => {
    const refusals = [
      () => core.db.$queryRawUnsafe('SELECT $1::text', 'a\u0000b'),
      () => core.db.$queryRawUnsafe(`SELECT '{"a\\u0000":1}'::jsonb`),
      () => core.db.$queryRawUnsafe('SELECT $1::int', 99999999999),
      () => core.db.$queryRawUnsafe('SELECT $1::timestamptz', '99999999-01-01'),
      () => core.db.configSnapshot.findUnique({ where: { version: 2 ** 40 } }),
      () => core.db.auditEvent.findMany({ where: { created_at: { gte: new Date(999999999999000) } } }),
      () => core.db.gitopsRun.findMany({ where: { started_at: new Date(1e308) } }),
    ];
    for (const refusal of refusals) {
      const error = await refusal().then(
        () => new Error(`${refusal} was not refused`),
        (thrown: unknown) => thrown,
      );
      const http = toHttpError(error);
      expect(http.status, `${(error as Error).constructor.name}: ${JSON.stringify(error)}`).to.equal(422);
      expect(http.detail).to.match(/cannot be stored/);
    }
  });
});

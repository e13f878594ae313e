import { expect } from 'chai';
import { TestCore } from '../support/core.js';

describe('HTTP conventions', () => {
  let core: TestCore;
  before(async () => {
    core = await TestCore.start({ CDN_API_MAX_BODY_BYTES: '2048' });
  });
  after(async () => {
    await core.stop();
  });

  it('answers malformed JSON with 400 and changes nothing', async () => {
    const before = await core.rowCounts();
    const error = await core.call('POST', '/api/v1/domains', undefined, 400, { rawBody: '{"domain": "a.example",' });
    expect(error.error).to.equal('malformed JSON body');
    expect(await core.rowCounts()).to.deep.equal(before);
  });

  it('answers a body over CDN_API_MAX_BODY_BYTES with 413', async () => {
    const error = await core.post('/api/v1/domains', { domain: 'big.example', display_name: 'x'.repeat(4096) }, 413);
    expect(error.error).to.equal('request body too large');
  });

  it('answers an unknown route with 404 and a JSON error', async () => {
    const error = await core.get('/api/v1/no-such-thing', 404);
    expect(error).to.deep.equal({ error: 'route not found', detail: 'GET /api/v1/no-such-thing is not an endpoint of this API' });
  });

  it('answers a JSON array where an object is expected with 422', async () => {
    const error = await core.post('/api/v1/domains', ['a.example'], 422);
    expect(error.detail).to.equal('body must be a JSON object');
  });

  it('answers a missing body on a create with 422', async () => {
    const error = await core.post('/api/v1/domains', undefined, 422);
    expect(error.detail).to.match(/JSON body is required/);
  });

  it('echoes a caller X-Request-Id and generates one otherwise', async () => {
    const echoed = await fetch(`${core.url}/health`, { headers: { 'x-request-id': 'trace-123' } });
    expect(echoed.headers.get('x-request-id')).to.equal('trace-123');
    const generated = await fetch(`${core.url}/health`);
    expect(generated.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });

  it('does not announce the framework', async () => {
    const response = await fetch(`${core.url}/health`);
    expect(response.headers.get('x-powered-by')).to.equal(null);
  });

  it('keeps SQL-looking strings as plain data', async () => {
    const hostile = "Robert'); DROP TABLE domains;--";
    const domain = await core.createDomain('sql.example', { display_name: hostile });
    expect((await core.get(`/api/v1/domains/${domain.id}`)).data.display_name).to.equal(hostile);
    expect(await core.db.domain.count()).to.be.greaterThan(0);
  });

  it('serves /health and /cdn-health without credentials', async () => {
    const health = await core.get('/health');
    expect(health.ok).to.equal(true);
    expect(health.time).to.be.a('number');
    const cdnHealth = await core.get('/cdn-health');
    expect(cdnHealth).to.include({ ok: true });
    expect(cdnHealth.checks).to.deep.equal({ database: 'ok', migrations: 'ok' });
  });

  it('reports readiness detail with the migration state', async () => {
    const detail = await core.get('/api/v1/readiness');
    expect(detail.status).to.equal('ok');
    expect(detail.database.migrations.pending).to.deep.equal([]);
    expect(detail.database.migrations.applied).to.be.greaterThan(0);
  });
});

import { expect } from 'chai';
import { signedHeaders } from '../../src/shared/signing.js';
import { TestCore } from '../support/core.js';

const EDGE_TOKEN = 'cdnedge_response-headers-token-0123456789';
const ADMIN = { username: 'admin', password: 'admin-password-1' };

function expectBaselineHeaders(response: Response, what: string): void {
  expect(response.headers.get('x-content-type-options'), what).to.equal('nosniff');
  expect(response.headers.get('cache-control'), what).to.equal('no-store');
}

describe('response headers', () => {
  let core: TestCore;
  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN, CDN_BOOTSTRAP_ADMIN_USER: 'true', CDN_BOOTSTRAP_ADMIN_USERNAME: ADMIN.username, CDN_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password });
  });
  after(async () => {
    await core.stop();
  });

  it('sends nosniff and no-store on answers, errors, 404s and body-parser refusals', async () => {
    const json = { 'content-type': 'application/json' };
    const answers: [string, Promise<Response>][] = [
      ['health', fetch(`${core.url}/health`)],
      ['ready', fetch(`${core.url}/ready`)],
      ['list', fetch(`${core.url}/api/v1/domains`)],
      ['create', fetch(`${core.url}/api/v1/domains`, { method: 'POST', headers: json, body: '{"domain":"headers.example"}' })],
      ['validation error', fetch(`${core.url}/api/v1/domains`, { method: 'POST', headers: json, body: '{"domain":7}' })],
      ['unknown route', fetch(`${core.url}/no-such-route`)],
      ['malformed JSON', fetch(`${core.url}/api/v1/domains`, { method: 'POST', headers: json, body: '{' })],
      ['malformed path', fetch(`${core.url}/api/v1/domains/%ZZ`)],
    ];
    for (const [what, answer] of answers) expectBaselineHeaders(await answer, what);
  });

  it('sends them on the direct lane, answered or refused', async () => {
    const path = '/api/v1/edge/config';
    const pulled = await fetch(`${core.url}${path}`, { headers: signedHeaders({ token: EDGE_TOKEN, edgeId: 'edge-1', method: 'GET', pathWithQuery: path }) });
    expect(pulled.status).to.equal(200);
    expectBaselineHeaders(pulled, 'config pull');
    const refused = await fetch(`${core.url}${path}`);
    expect(refused.status).to.equal(401);
    expectBaselineHeaders(refused, 'unsigned config pull');
  });

  it('keeps the session token of an admin login out of caches', async () => {
    const response = await fetch(`${core.url}/api/v1/admin/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
    expect(response.status).to.equal(200);
    expect((await response.json()).data.token).to.be.a('string');
    expectBaselineHeaders(response, 'login');
  });
});

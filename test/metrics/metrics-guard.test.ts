import { expect } from 'chai';
import { isLoopback } from '../../src/metrics/metrics-endpoint.js';
import { TestCore } from '../support/core.js';

const METRICS_TOKEN = 'metrics-scraper-token-0123456789';
// A client beyond the trusted proxy on loopback: what the core takes as the caller when CDN_API_TRUSTED_PROXIES=loopback.
const REMOTE = { 'x-forwarded-for': '203.0.113.9' };

async function scrape(core: TestCore, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const response = await fetch(`${core.url}/metrics`, { headers });
  return { status: response.status, body: await response.text() };
}

describe('Who may read /metrics', function () {
  this.timeout(60000);

  describe('without CDN_METRICS_TOKEN', () => {
    let core: TestCore;
    before(async () => {
      core = await TestCore.start({ CDN_API_TRUSTED_PROXIES: 'loopback', CDN_API_TOKEN: 'the-api-token' });
    });
    after(() => core?.stop());

    it('serves a loopback client without credentials, even when the API wants a token', async () => {
      const answer = await scrape(core);
      expect(answer.status).to.equal(200);
      expect(answer.body).to.match(/^# TYPE cdn_core_http_requests_total counter$/m);
    });

    it('refuses a remote client with 403', async () => {
      const answer = await scrape(core, REMOTE);
      expect(answer.status).to.equal(403);
      expect(JSON.parse(answer.body)).to.include({ error: 'metrics are served to loopback clients only' });
    });

    it('refuses any bearer with 401, the API token included, from loopback too', async () => {
      expect((await scrape(core, { authorization: 'Bearer the-api-token' })).status).to.equal(401);
      expect((await scrape(core, { authorization: 'Bearer anything' })).status).to.equal(401);
    });

    it('counts the refusals under the /metrics route', async () => {
      await scrape(core, REMOTE);
      const answer = await scrape(core);
      expect(answer.body).to.match(/^cdn_core_http_requests_total\{method="GET",route="\/metrics",status_class="4xx"\} [1-9]/m);
    });
  });

  describe('with CDN_METRICS_TOKEN', () => {
    let core: TestCore;
    before(async () => {
      core = await TestCore.start({ CDN_API_TRUSTED_PROXIES: 'loopback', CDN_METRICS_TOKEN: METRICS_TOKEN });
    });
    after(() => core?.stop());

    it('serves a remote client that presents the token', async () => {
      expect((await scrape(core, { ...REMOTE, authorization: `Bearer ${METRICS_TOKEN}` })).status).to.equal(200);
    });

    it('asks a remote client without a bearer for one with 401', async () => {
      expect((await scrape(core, REMOTE)).status).to.equal(401);
    });

    it('refuses a wrong bearer with 401, remote or loopback', async () => {
      expect((await scrape(core, { ...REMOTE, authorization: `Bearer ${METRICS_TOKEN}x` })).status).to.equal(401);
      expect((await scrape(core, { authorization: `Bearer ${METRICS_TOKEN.slice(1)}` })).status).to.equal(401);
    });

    it('still serves a loopback client without credentials', async () => {
      expect((await scrape(core)).status).to.equal(200);
    });
  });

  describe('when the proxy in front is not trusted', () => {
    let core: TestCore;
    before(async () => {
      core = await TestCore.start();
    });
    after(() => core?.stop());

    it('ignores X-Forwarded-For and takes the socket address', async () => {
      expect((await scrape(core, REMOTE)).status).to.equal(200);
    });
  });

  it('tells loopback addresses from the others', () => {
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) expect(isLoopback(address), address).to.equal(true);
    for (const address of ['10.0.0.1', '203.0.113.9', '::ffff:203.0.113.9', '2001:db8::1', '', 'localhost', undefined]) expect(isLoopback(address), String(address)).to.equal(false);
  });
});

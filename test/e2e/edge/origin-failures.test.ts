import { expect } from 'chai';
import { TestCore } from '../../support/core.js';
import { EdgeProcess } from '../../support/edge-process.js';
import { createSite, publish } from '../../support/edge-site.js';
import { eventually } from '../../support/eventually.js';
import { startRawOrigin, type RawOrigin, type RawOriginRequest } from '../../support/raw-origin.js';

const TOKEN = 'cdnedge_e2e-origin-failures-0123456789ab';
const CACHEABLE = { 'Cache-Control': 'public, max-age=60' };

// The origin of failing.example: resets, stalls, or answers with a status line the path names.
function failingOrigin(request: RawOriginRequest): void {
  switch (request.target) {
    case '/reset':
      return void request.socket.resetAndDestroy();
    case '/stall':
      return;
    case '/odd':
      return request.respond('HTTP/1.1 999 Odd', 'odd', CACHEABLE);
    case '/low':
      return request.respond('HTTP/1.1 099 Low', 'low', CACHEABLE);
    default:
      return request.respond('HTTP/1.1 200 OK', `fine ${request.target}`, CACHEABLE);
  }
}

// The origin of closing.example answers the first request of each connection (without `Connection:
// close`) and closes the connection 200 ms later; a request arriving on it meanwhile gets nothing.
function closingOrigin(request: RawOriginRequest): void {
  if (request.sequence > 0) return;
  request.respond('HTTP/1.1 200 OK', `fine ${request.target}`, CACHEABLE);
  setTimeout(() => request.socket.destroy(), 200);
}

// One real core, one real `cdn edge` and raw origins on loopback; every site caches (cacheable GETs go through the cache phase).
describe('cdn edge answers origin failures on cacheable GETs with their own pages', function () {
  this.timeout(60000);
  let core: TestCore;
  let failing: RawOrigin;
  let closing: RawOrigin;
  let edge: EdgeProcess;

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN });
    failing = await startRawOrigin(failingOrigin);
    closing = await startRawOrigin(closingOrigin);
    const noBreaker = { circuit_breaker_enabled: false, read_timeout_ms: 1000 };
    await createSite(core, 'failing.example', failing.port, noBreaker);
    await createSite(core, 'closing.example', closing.port, { circuit_breaker_failure_threshold: 2 });
    await publish(core);
    edge = await EdgeProcess.start({ coreUrl: core.url, token: TOKEN, workers: 2 });
  });
  after(async () => {
    await edge?.stop();
    await failing?.close();
    await closing?.close();
    await core?.stop();
  });

  it('serves a cacheable GET of the failing site from the cache phase', async () => {
    const first = await edge.request('failing.example', '/fine');
    expect(first.status).to.equal(200);
    expect(first.headers['x-cache']).to.equal('MISS');
    expect((await edge.request('failing.example', '/fine')).headers['x-cache']).to.equal('HIT');
  });

  it('answers 502 with the CDN page and a request id when the origin resets a cacheable GET', async () => {
    const response = await edge.request('failing.example', '/reset');
    expect(response.status).to.equal(502);
    expect(response.headers['x-request-id']).to.be.a('string');
    expect(response.text).to.contain('could not connect').and.contain(String(response.headers['x-request-id'])).and.not.contain('127.0.0.1');
  });

  it('answers 504 after one read timeout of the only origin, in about 1 s rather than 2', async () => {
    const before = failing.requests.filter((request) => request.target === '/stall').length;
    const started = Date.now();
    const response = await edge.request('failing.example', '/stall');
    const waited = Date.now() - started;
    expect(response.status).to.equal(504);
    expect(response.headers['x-request-id']).to.be.a('string');
    expect(response.text).to.contain('did not answer in time');
    expect(waited).to.be.within(900, 1700);
    expect(failing.requests.filter((request) => request.target === '/stall').length - before).to.equal(1);
  });

  it('logs origin failures as warnings, never as a failure of the edge pipeline', async () => {
    expect((await edge.request('failing.example', '/reset')).status).to.equal(502);
    await eventually('the failures in the edge log', async () => (edge.output.includes('origin request failed') ? true : undefined), 5000);
    expect(edge.output).not.to.include('edge pipeline failed');
    expect(edge.output).not.to.include('    at ');
  });

  it('passes a 999 through, refuses a 099 with 502, and the core stores the usage of both', async () => {
    const odd = await edge.request('failing.example', '/odd');
    expect([odd.status, odd.text]).to.deep.equal([999, 'odd']);
    const low = await edge.request('failing.example', '/low');
    expect(low.status).to.equal(502);
    expect(low.headers['x-request-id']).to.be.a('string');
    const events = await eventually(
      'the usage events of /odd and /low',
      async () => {
        const rows = await core.db.usageEvent.findMany({ where: { path: { in: ['/odd', '/low'] } }, orderBy: { path: 'asc' } });
        return rows.length >= 2 ? rows : undefined;
      },
      20000,
    );
    expect(events.map((row) => [row.path, row.status])).to.deep.equal([
      ['/low', 502],
      ['/odd', 999],
    ]);
  });

  it('answers every request to an origin that closes each connection after one response, without opening its breaker', async () => {
    const statuses: number[] = [];
    for (let index = 0; index < 12; index++) statuses.push((await edge.request('closing.example', `/page/${index}`)).status);
    expect(statuses).to.deep.equal(new Array(12).fill(200));
    expect(closing.requests.filter((request) => request.sequence > 0).length, 'requests that met a closing connection').to.be.at.least(2);
    expect((await edge.request('closing.example', '/after')).status).to.equal(200);
  });
});

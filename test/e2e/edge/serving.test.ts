import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { TestCore, type Json } from '../../support/core.js';
import { EdgeProcess } from '../../support/edge-process.js';
import { createSite, publish, TestOrigin } from '../../support/edge-site.js';
import { eventually } from '../../support/eventually.js';
import { writeMmdb } from '../../support/mmdb-writer.js';

const TOKEN = 'cdnedge_e2e-serving-token-0123456789abcdef';

// One real core (real PostgreSQL), one real `cdn edge` with two workers and real origins on loopback.
describe('cdn edge serves customer traffic from the published snapshot', function () {
  this.timeout(60000);
  let core: TestCore;
  let origin: TestOrigin;
  let backup: TestOrigin;
  let edge: EdgeProcess;
  let site: Json;
  let geoDir: string;
  const base = () => `/api/v1/domains/${site.id}`;

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN });
    origin = await TestOrigin.start('primary');
    backup = await TestOrigin.start('backup');
    site = await createSite(core, 'example.com', origin.port);
    await publish(core);
    geoDir = await mkdtemp(path.join(tmpdir(), 'cdn-geo-'));
    await writeFile(path.join(geoDir, 'countries.mmdb'), writeMmdb({ '203.0.113.0/24': { country_code: 'NL' } }));
    edge = await EdgeProcess.start({ coreUrl: core.url, token: TOKEN, env: { CDN_EDGE_TRUSTED_PROXIES: 'loopback', CDN_EDGE_GEOIP_FILE: path.join(geoDir, 'countries.mmdb') } });
  });
  after(async () => {
    await edge?.stop();
    await origin?.stop();
    await backup?.stop();
    await core?.stop();
    if (geoDir) await rm(geoDir, { recursive: true, force: true });
  });

  async function republish(): Promise<void> {
    const version = await publish(core);
    await edge.waitReady(version);
  }

  it('proxies to the origin, then answers the second request from the cache', async () => {
    const first = await edge.request('www.example.com', '/walkthrough');
    expect(first.status).to.equal(200);
    expect(first.text).to.equal('origin primary /walkthrough\n');
    expect(first.headers['x-cache']).to.equal('MISS');
    const second = await edge.request('www.example.com', '/walkthrough');
    expect(second.text).to.equal('origin primary /walkthrough\n');
    expect(second.headers['x-cache']).to.equal('HIT');
    expect(origin.count('/walkthrough')).to.equal(1);
  });

  it('answers the second request from the cache whichever worker takes it', async () => {
    // Connections alternate between the two workers: the second request of each pair is the other worker's.
    for (let index = 0; index < 6; index++) {
      expect((await edge.request('www.example.com', `/pair/${index}`)).headers['x-cache']).to.equal('MISS');
      expect((await edge.request('www.example.com', `/pair/${index}`)).headers['x-cache'], `pair ${index}`).to.equal('HIT');
    }
  });

  it('removes the Server header and version tokens, and stamps a request id', async () => {
    const response = await edge.request('example.com', '/hygiene');
    expect(response.headers).not.to.have.property('server');
    expect(response.headers).not.to.have.property('x-powered-by');
    expect(response.headers['x-request-id']).to.match(/^[0-9a-f]+-[0-9a-z]+$/);
  });

  it('answers an unknown host with the CDN 404 page and a request id', async () => {
    const response = await edge.request('unknown.example.net', '/');
    expect(response.status).to.equal(404);
    expect(response.text).to.contain('Request id').and.to.contain(String(response.headers['x-request-id']));
  });

  it('reports the active version and checksum on /ready', async () => {
    const ready = await edge.waitReady();
    const snapshots = await core.get('/api/v1/config/snapshots');
    const active = snapshots.data.find((snapshot: Json) => snapshot.active);
    expect(ready.config.version).to.equal(active.version);
    expect(ready.config.checksum).to.equal(active.checksum);
    expect(ready.telemetry).to.have.keys('usage', 'security', 'origin_health');
  });

  it('answers /__cdn_reload_config from loopback with the pull outcome', async () => {
    await core.post(`${base()}/headers`, { name: 'reload marker', header_name: 'x-reload-marker', value: 'yes' }, 201);
    await publish(core);
    const reload = await edge.request('127.0.0.1', '/__cdn_reload_config', { method: 'POST' });
    expect(reload.status).to.equal(200);
    expect(JSON.parse(reload.text).data.outcome).to.be.oneOf(['updated', 'unchanged']);
    await eventually('the header rule to apply', async () => ((await edge.request('www.example.com', '/reload-marker')).headers['x-reload-marker'] === 'yes' ? true : undefined));
  });

  it('applies a redirect rule', async () => {
    await core.post(`${base()}/redirects`, { name: 'old', match: { paths: [{ kind: 'prefix', value: '/old/' }] }, target: '/new/', status_code: 308 }, 201);
    await republish();
    const response = await edge.request('www.example.com', '/old/page');
    expect(response.status).to.equal(308);
    expect(response.headers.location).to.equal('/new/');
  });

  it('blocks by IP rule and by country from a trusted header', async () => {
    await core.post(`${base()}/ip-rules`, { name: 'block doc net', cidr: '192.0.2.0/24', action: 'block' }, 201);
    await core.post(`${base()}/waf-rules`, { name: 'no FR', match: { countries: ['FR'] }, action: 'block' }, 201);
    await republish();
    expect((await edge.request('www.example.com', '/ip', { headers: { 'x-forwarded-for': '192.0.2.7' } })).status).to.equal(403);
    expect((await edge.request('www.example.com', '/geo', { headers: { 'x-cdn-country': 'FR' } })).status).to.equal(403);
    expect((await edge.request('www.example.com', '/geo', { headers: { 'x-cdn-country': 'DE' } })).status).to.equal(200);
  });

  it('resolves the country of the client address from the GeoIP file', async () => {
    await core.post(`${base()}/waf-rules`, { name: 'no NL', match: { countries: ['NL'], paths: [{ kind: 'prefix', value: '/geoip' }] }, action: 'block' }, 201);
    await republish();
    expect((await edge.request('www.example.com', '/geoip', { headers: { 'x-forwarded-for': '203.0.113.5' } })).status).to.equal(403);
    expect((await edge.request('www.example.com', '/geoip', { headers: { 'x-forwarded-for': '198.51.100.20' } })).status).to.equal(200);
    const blocked = await eventually('the security event', async () => (await core.db.securityEvent.findFirst({ where: { path: '/geoip' } })) ?? undefined);
    expect(blocked.client_country).to.equal('NL');
  });

  it('blocks a SQL injection with the managed WAF signatures', async () => {
    await core.post(`${base()}/waf-rules`, { name: 'managed', signatures: ['sqli', 'xss', 'path_traversal'], action: 'block' }, 201);
    await republish();
    expect((await edge.request('www.example.com', "/search?q=1'%20OR%201=1--")).status).to.equal(403);
    expect((await edge.request('www.example.com', '/search?q=union%20station')).status).to.equal(200);
  });

  it('rate limits per client with 429 and Retry-After', async () => {
    await core.post(`${base()}/rate-limits`, { name: 'tight', match: { paths: [{ kind: 'prefix', value: '/limited' }] }, requests: 3, period_seconds: 60, action: 'block', block_seconds: 30 }, 201);
    await republish();
    const statuses: number[] = [];
    // One worker holds one client's counter only when the same connection is used; with fresh connections
    // the two workers count separately (docs/edge-security.md), so send enough to pass both.
    for (let index = 0; index < 10; index++) statuses.push((await edge.request('www.example.com', `/limited/${index}`, { headers: { 'x-forwarded-for': '198.51.100.9' } })).status);
    expect(statuses).to.include(429);
  });

  it('bypasses the cache for a bypass rule and adds response headers', async () => {
    await core.post(`${base()}/cache-rules`, { name: 'api bypass', match: { paths: [{ kind: 'prefix', value: '/api/' }] }, action: 'bypass' }, 201);
    await core.post(`${base()}/headers`, { name: 'hsts', header_name: 'strict-transport-security', value: 'max-age=600' }, 201);
    await republish();
    const first = await edge.request('www.example.com', '/api/x');
    const second = await edge.request('www.example.com', '/api/x');
    expect([first.headers['x-cache'], second.headers['x-cache']]).to.deep.equal(['BYPASS', 'BYPASS']);
    expect(second.headers['strict-transport-security']).to.equal('max-age=600');
    expect(origin.count('/api/x')).to.equal(2);
  });

  it('purges a URL from every worker and acknowledges it to the core', async () => {
    await edge.request('www.example.com', '/purge-me');
    // The shared disk tier has it once the first answer's write finished; every worker then hits.
    await eventually('both workers to hit', async () => {
      const statuses = await Promise.all([1, 2, 3, 4].map(async () => (await edge.request('www.example.com', '/purge-me')).headers['x-cache']));
      return statuses.every((status) => status === 'HIT') ? true : undefined;
    });
    const fetched = origin.count('/purge-me');
    const purge = (await core.post(`${base()}/cache/purge`, { scope: 'url', value: 'https://www.example.com/purge-me' }, 201)).data;
    await republish();
    await eventually('the purge to complete', async () => ((await core.get(`${base()}/cache/purge-requests/${purge.id}`)).data.status === 'completed' ? true : undefined));
    const after = await edge.request('www.example.com', '/purge-me');
    expect(after.headers['x-cache']).to.equal('MISS');
    expect(origin.count('/purge-me')).to.equal(fetched + 1);
  });

  it('never retries a POST, and fails over a GET to the backup when the primary is down', async () => {
    await core.post(`${base()}/origins`, { host: '127.0.0.1', scheme: 'http', port: backup.port, role: 'backup' }, 201);
    await republish();
    await origin.stop();
    const post = await edge.request('www.example.com', '/form', { method: 'POST', body: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(post.status).to.equal(502);
    expect(post.text).to.contain('Request id');
    expect(backup.count('/form')).to.equal(0);
    const get = await edge.request('www.example.com', '/failover');
    expect(get.status).to.equal(200);
    expect(get.text).to.equal('origin backup /failover\n');
  });

  it('closes the connection after refusing a body that is too large, so its bytes are never read as a request', async () => {
    const socket = net.connect(edge.port, '127.0.0.1');
    const received = new Promise<{ text: string; closed: boolean }>((resolve) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve({ text, closed: true }));
      setTimeout(() => resolve({ text, closed: false }), 3000).unref();
    });
    const smuggled = 'GET /smuggled HTTP/1.1\r\nHost: www.example.com\r\n\r\n';
    socket.write(`POST /upload HTTP/1.1\r\nHost: www.example.com\r\nContent-Length: ${20 * 1024 * 1024}\r\n\r\n${smuggled}`);
    const { text, closed } = await received;
    socket.destroy();
    expect(text).to.match(/^HTTP\/1\.1 413 /);
    expect(text.toLowerCase()).to.include('connection: close');
    expect(text.match(/HTTP\/1\.1 /g)).to.have.length(1);
    expect(closed).to.equal(true);
    expect(origin.count('/smuggled')).to.equal(0);
  });

  it('tells origins it passed (CDN-Loop) and answers 508 when the origin of a site points back at the edge', async () => {
    await edge.request('www.example.com', '/loop-header');
    const seen = [...origin.requests, ...backup.requests].find((request) => request.url === '/loop-header');
    expect(seen?.headers['cdn-loop']).to.match(/^edge-[0-9a-f]{16}$/);
    await createSite(core, 'loop.example', edge.port);
    await republish();
    const looped = await edge.request('www.loop.example', '/again');
    expect(looped.status).to.equal(508);
    expect(looped.text).to.contain('points at the CDN');
  });

  it('revalidates an expired object with the origin (If-None-Match) and serves it again on a 304', async () => {
    const tagged = await TestOrigin.start('tagged', (req, res) => {
      const headers = { etag: '"t1"', 'cache-control': 'max-age=1', 'content-type': 'text/plain' };
      if (req.headers['if-none-match'] === '"t1"') return void res.writeHead(304, headers).end();
      res.writeHead(200, headers).end('tagged body\n');
    });
    try {
      await createSite(core, 'tagged.example', tagged.port);
      await republish();
      expect((await edge.request('www.tagged.example', '/t')).headers['x-cache']).to.equal('MISS');
      await new Promise((resolve) => setTimeout(resolve, 2100));
      const again = await edge.request('www.tagged.example', '/t');
      expect([again.status, again.text, again.headers['x-cache']]).to.deep.equal([200, 'tagged body\n', 'EXPIRED']);
      expect(tagged.requests.map((request) => request.headers['if-none-match'])).to.deep.equal([undefined, '"t1"']);
    } finally {
      await tagged.stop();
    }
  });

  it('ships usage events to the core', async () => {
    const events = await eventually('usage to arrive', async () => {
      const rows = await core.db.usageEvent.findMany({ where: { path: '/walkthrough' } });
      return rows.length >= 2 ? rows : undefined;
    });
    expect(events.map((event) => event.cache_status).sort()).to.deep.equal(['hit', 'miss']);
  });
});

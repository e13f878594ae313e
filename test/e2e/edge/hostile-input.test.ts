import { expect } from 'chai';
import { TestCore, type Json } from '../../support/core.js';
import { EdgeProcess } from '../../support/edge-process.js';
import { createSite, publish, TestOrigin } from '../../support/edge-site.js';
import { sendRaw as send } from '../../support/raw-socket.js';

const TOKEN = 'cdnedge_e2e-hostile-token-0123456789abcdef';
const HOST = 'www.hostile.example';

const request = (target: string, headers: string[] = [`Host: ${HOST}`], method = 'GET') => `${method} ${target} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`;

// Requests an attacker (or a broken client) sends. None may get a 500, crash a worker or stall the edge.
const CASES: { name: string; bytes: string | Buffer; expect: number[] }[] = [
  { name: 'NUL in the path', bytes: request('/a%00b'), expect: [200] },
  { name: 'raw NUL byte in the request line', bytes: Buffer.from(`GET /a\0b HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`, 'latin1'), expect: [400] },
  { name: 'CR LF smuggled in a percent-encoded path', bytes: request('/x%0D%0ASet-Cookie:%20a=1'), expect: [200] },
  { name: 'a 15 KB path', bytes: request(`/${'a'.repeat(15000)}`), expect: [200] },
  { name: 'headers over 16 KB', bytes: request('/', [`Host: ${HOST}`, `X-Big: ${'b'.repeat(17000)}`]), expect: [431] },
  { name: '200 headers', bytes: request('/', [`Host: ${HOST}`, ...Array.from({ length: 200 }, (_, n) => `X-H${n}: v`)]), expect: [200] },
  { name: 'no Host header', bytes: 'GET / HTTP/1.1\r\n\r\n', expect: [400] },
  { name: 'two Host headers', bytes: request('/', [`Host: ${HOST}`, 'Host: other.example']), expect: [400] },
  { name: 'Host with a port and a trailing dot', bytes: request('/', [`Host: ${HOST}.:8081`]), expect: [200] },
  { name: 'Host that is an IPv6 literal', bytes: request('/', ['Host: [::1]:8081']), expect: [404] },
  { name: 'Host with non-ASCII bytes', bytes: Buffer.from(`GET / HTTP/1.1\r\nHost: www.h\u00f6stile.example\r\n\r\n`, 'latin1'), expect: [400] },
  { name: 'absolute-form target naming another host', bytes: request('http://evil.example/steal', [`Host: ${HOST}`]), expect: [404] },
  { name: 'asterisk-form target', bytes: request('*', [`Host: ${HOST}`], 'OPTIONS'), expect: [400] },
  { name: 'CONNECT', bytes: request('evil.example:443', [`Host: ${HOST}`], 'CONNECT'), expect: [405] },
  { name: 'TRACE', bytes: request('/', [`Host: ${HOST}`], 'TRACE'), expect: [405] },
  { name: 'an unknown method', bytes: request('/', [`Host: ${HOST}`], 'BREW'), expect: [405] },
  { name: 'Content-Length and Transfer-Encoding together (smuggling)', bytes: `POST /upload HTTP/1.1\r\nHost: ${HOST}\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`, expect: [400] },
  { name: 'a chunk size that is not hex', bytes: `POST /upload HTTP/1.1\r\nHost: ${HOST}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n`, expect: [400] },
  { name: 'a negative Content-Length', bytes: `POST /upload HTTP/1.1\r\nHost: ${HOST}\r\nContent-Length: -5\r\n\r\n`, expect: [400] },
  { name: 'a Content-Length larger than any number', bytes: `POST /upload HTTP/1.1\r\nHost: ${HOST}\r\nContent-Length: 99999999999999999999999999\r\n\r\n`, expect: [400] },
  { name: 'a Range beyond 2^53', bytes: request('/cached', [`Host: ${HOST}`, 'Range: bytes=99999999999999999999999-']), expect: [200, 416] },
  { name: 'a malformed Range', bytes: request('/cached', [`Host: ${HOST}`, 'Range: bytes=-0,,,=5-a']), expect: [200] },
  { name: 'a huge If-None-Match list', bytes: request('/cached', [`Host: ${HOST}`, `If-None-Match: ${Array.from({ length: 2000 }, (_, n) => `"e${n}"`).join(',')}`]), expect: [200] },
  { name: 'a huge cookie header', bytes: request('/', [`Host: ${HOST}`, `Cookie: ${Array.from({ length: 1500 }, (_, n) => `c${n}=v`).join('; ')}`]), expect: [200] },
  { name: 'a deeply nested query', bytes: request(`/q?${'a[b]'.repeat(1000)}=1&${'x=1&'.repeat(500)}`), expect: [200] },
  { name: 'X-Forwarded-For garbage', bytes: request('/', [`Host: ${HOST}`, `X-Forwarded-For: ${'not-an-ip, '.repeat(300)}::ffff:1.2.3.4, ,,`]), expect: [200] },
  { name: 'CDN-Loop of 5,000 entries', bytes: request('/', [`Host: ${HOST}`, `CDN-Loop: ${'x, '.repeat(5000)}y`]), expect: [200] },
  { name: 'a challenge answer that is not a form', bytes: `POST /__cdn/challenge HTTP/1.1\r\nHost: ${HOST}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 9\r\n\r\n%%%%%%%%%`, expect: [400, 403] },
  { name: 'HTTP/1.0 without Host', bytes: 'GET / HTTP/1.0\r\n\r\n', expect: [404] },
  { name: 'an HTTP/2 preface on the HTTP/1 port', bytes: 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', expect: [400] },
  { name: 'binary garbage', bytes: Buffer.from(Array.from({ length: 512 }, (_, n) => (n * 37) % 256)), expect: [400] },
];

// One real core, one real `cdn edge` (two workers) and a real origin on loopback.
describe('cdn edge under hostile input', function () {
  this.timeout(120000);
  let core: TestCore;
  let origin: TestOrigin;
  let edge: EdgeProcess;
  let site: Json;

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN });
    origin = await TestOrigin.start('primary', (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'max-age=600', etag: '"v1"' }).end(`origin ${req.method} ${req.url?.slice(0, 64)}\n`);
    });
    site = await createSite(core, 'hostile.example', origin.port);
    await core.post(`/api/v1/domains/${site.id}/rate-limits`, { name: 'generous', requests: 100000, period_seconds: 60 }, 201);
    await core.post(`/api/v1/domains/${site.id}/waf-rules`, { name: 'managed', signatures: ['sqli', 'xss', 'path_traversal'], action: 'log' }, 201);
    await core.post(`/api/v1/domains/${site.id}/redirects`, { name: 'keep path', match: { paths: [{ kind: 'prefix', value: '/moved/' }] }, target: '/', preserve_path: true }, 201);
    await publish(core);
    edge = await EdgeProcess.start({ coreUrl: core.url, token: TOKEN, env: { CDN_EDGE_TRUSTED_PROXIES: 'loopback' } });
    expect((await send(edge.port, request('/cached'))).status).to.equal(200);
  });
  after(async () => {
    await edge?.stop();
    await origin?.stop();
    await core?.stop();
  });

  for (const c of CASES) {
    it(`answers ${c.name} with ${c.expect.join(' or ')}`, async () => {
      const { status, text } = await send(edge.port, c.bytes);
      expect(status, text.slice(0, 200)).to.be.oneOf(c.expect);
    });
  }

  it('never smuggled a request to the origin', () => {
    expect(origin.count('/smuggled')).to.equal(0);
  });

  it('is still whole afterwards: no worker exited, no pipeline failure, and it serves', async () => {
    expect(edge.output).not.to.include('edge worker exited');
    expect(edge.output).not.to.include('edge pipeline failed');
    expect((await edge.request(HOST, '/after')).status).to.equal(200);
  });
});

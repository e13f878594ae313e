import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { expect } from 'chai';
import { TestCore, type Json } from '../../support/core.js';
import { EdgeProcess } from '../../support/edge-process.js';
import { createSite, publish, TestOrigin } from '../../support/edge-site.js';
import { eventually } from '../../support/eventually.js';
import { rawBody, rawHeaders, sendRaw } from '../../support/raw-socket.js';

// The regression suite of issue #22's host confusion, cache poisoning and rule bypass
// attacks, sent with raw sockets to a real `cdn edge` in front of two sites whose origins
// say what they received (and reflect the Host, as many applications do).
const TOKEN = 'cdnedge_e2e-confusion-token-0123456789abcdef';
const ALPHA = 'www.alpha.example';
const BETA = 'www.beta.example';

type Seen = { origin: string; method: string; url: string; host: string; xfh: string; verified: string | null; claims: string[]; realIp: string; fields: [string, string][] };

// Headers with which a client could make the origin read another host, path, method or client.
const CLAIMS = ['forwarded', 'x-original-url', 'x-rewrite-url', 'x-http-method-override', 'x-method-override', 'x-forwarded-port', 'x-forwarded-scheme', 'true-client-ip', 'x-client-ip'];

const request = (target: string, headers: string[], method = 'GET') => `${method} ${target} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`;

// An origin answering every request with what it saw, cacheable for ten minutes, announcing its software.
/** The fields naming the origin's software that the reflecting origin sends, none of which may reach a client. */
const ORIGIN_SOFTWARE = ['server', 'x-powered-by', 'x-aspnet-version', 'x-runtime', 'x-generator'];

function reflectingOrigin(name: string): Promise<TestOrigin> {
  return TestOrigin.start(name, (req, res) => {
    req.resume();
    const seen: Seen = {
      origin: name,
      method: req.method ?? '',
      url: req.url ?? '',
      host: req.headers.host ?? '',
      xfh: String(req.headers['x-forwarded-host'] ?? ''),
      verified: (req.headers['x-edge-verified'] as string | undefined) ?? null,
      claims: CLAIMS.filter((claim) => req.headers[claim] !== undefined),
      realIp: String(req.headers['x-real-ip'] ?? ''),
      // Every header line as it arrived, names in lower case: what Node's parsing would join or drop.
      fields: Array.from({ length: req.rawHeaders.length / 2 }, (_, index) => [req.rawHeaders[2 * index].toLowerCase(), req.rawHeaders[2 * index + 1]] as [string, string]),
    };
    const body = JSON.stringify(seen);
    // Names as the origin's software spells them: hygiene and the header rules must find them whatever their case
    // (hygiene's filter by first letter and length, pipeline/hygiene-phase.ts, sees each of these differently).
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'cache-control': 'max-age=600', Server: 'Origin/1.0', 'X-POWERED-BY': 'PHP/5.1', 'X-AspNet-Version': '4.0.30319', 'X-Runtime': '0.012', 'X-Generator': 'Drupal 7', 'X-Internal': 'secret' });
    res.end(body);
  });
}

// The origin also accepts WebSocket handshakes, answering with headers the edge must clean.
function acceptUpgrades(origin: TestOrigin): void {
  origin.server.on('upgrade', (req: http.IncomingMessage, socket: Duplex) => {
    origin.requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers });
    socket.end('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nServer: Origin/1.0\r\nX-Internal: secret\r\n\r\n');
  });
}

describe('cdn edge against host confusion, cache poisoning and rule bypass', function () {
  this.timeout(120000);
  let core: TestCore;
  let alphaOrigin: TestOrigin;
  let betaOrigin: TestOrigin;
  let edge: EdgeProcess;
  let alpha: Json;

  const get = (target: string, host = ALPHA, extra: string[] = [], method = 'GET') => sendRaw(edge.port, request(target, [`Host: ${host}`, ...extra], method));
  const seenBy = (text: string): Seen => JSON.parse(rawBody(text)) as Seen;

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN });
    alphaOrigin = await reflectingOrigin('alpha');
    betaOrigin = await reflectingOrigin('beta');
    acceptUpgrades(alphaOrigin);
    alpha = await createSite(core, 'alpha.example', alphaOrigin.port);
    await createSite(core, 'beta.example', betaOrigin.port);
    const rules = `/api/v1/domains/${alpha.id}`;
    await core.post(`${rules}/waf-rules`, { name: 'admin', match: { paths: [{ kind: 'prefix', value: '/admin' }] }, action: 'block' }, 201);
    await core.post(`${rules}/waf-rules`, { name: 'no debug', match: { query: [{ name: 'debug', pattern: { kind: 'exact', value: '1' } }] }, action: 'block' }, 201);
    await core.post(`${rules}/waf-rules`, { name: 'protected', match: { paths: [{ kind: 'prefix', value: '/protected' }] }, action: 'challenge' }, 201);
    await core.post(`${rules}/redirects`, { name: 'keep path', match: { paths: [{ kind: 'prefix', value: '/moved/' }] }, target: '/', preserve_path: true, status_code: 301 }, 201);
    await core.post(`${rules}/rate-limits`, { name: 'login', match: { paths: [{ kind: 'exact', value: '/login' }] }, requests: 2, period_seconds: 600, key: 'ip_path' }, 201);
    await core.post(`${rules}/headers`, { name: 'verified', phase: 'request', operation: 'set', header_name: 'X-Edge-Verified', value: 'yes' }, 201);
    await core.post(`${rules}/headers`, { name: 'hide internal', phase: 'response', operation: 'remove', header_name: 'X-Internal' }, 201);
    await core.post(`${rules}/waf-rules`, { name: 'no FR', match: { countries: ['FR'], paths: [{ kind: 'prefix', value: '/geo' }] }, action: 'block' }, 201);
    await core.post(`${rules}/waf-rules`, { name: 'staff host', match: { headers: [{ name: 'Host', pattern: { kind: 'exact', value: 'staff.alpha.example' } }] }, action: 'block' }, 201);
    await core.post(`/api/v1/domains/${alpha.id}/dns/records`, { type: 'CNAME', name: 'staff', content: 'alpha.example', proxied: true }, 201);
    await publish(core);
    // One worker: rate-limit counters are per worker.
    edge = await EdgeProcess.start({ coreUrl: core.url, token: TOKEN, workers: 1, env: { CDN_EDGE_TRUSTED_PROXIES: 'loopback' } });
  });
  after(async () => {
    await edge?.stop();
    await alphaOrigin?.stop();
    await betaOrigin?.stop();
    await core?.stop();
  });

  describe('absolute-form targets (RFC 9112 §3.2.2)', () => {
    it('serves the target\'s host with its own rules, whatever the Host header says', async () => {
      expect((await get('http://www.alpha.example/admin', BETA)).status).to.equal(403);
      const other = await get('http://www.beta.example/admin', ALPHA);
      expect(other.status).to.equal(200);
      expect(seenBy(other.text)).to.include({ origin: 'beta', host: BETA, xfh: BETA, url: '/admin' });
    });

    it('never caches one site\'s content under the other\'s key', async () => {
      expect(seenBy((await get('http://www.beta.example/page-abs', ALPHA)).text)).to.include({ origin: 'beta', host: BETA });
      const alphaCopy = await get('/page-abs', ALPHA);
      expect(seenBy(alphaCopy.text)).to.include({ origin: 'alpha', host: ALPHA });
      expect(rawHeaders(alphaCopy.text)['x-cache']).to.deep.equal(['MISS']);
      const betaCopy = await get('/page-abs', BETA);
      expect(seenBy(betaCopy.text)).to.include({ origin: 'beta' });
      expect(rawHeaders(betaCopy.text)['x-cache']).to.deep.equal(['HIT']);
    });
  });

  describe('Host validation and normalisation', () => {
    it('refuses a Host with anything but digits after the colon, before any origin sees it', async () => {
      const before = alphaOrigin.requests.length;
      const refused = await get('/reflect', `${ALPHA}:"><svg/onload=alert(1)>`);
      expect(refused.status).to.equal(400);
      expect(rawHeaders(refused.text)['x-request-id']).to.have.length(1);
      expect(alphaOrigin.requests.length).to.equal(before);
      expect(rawBody((await get('/reflect')).text)).not.to.include('svg');
    });

    it('sends the origin the normalised host, so every spelling shares one cached answer', async () => {
      const first = await get('/page-host', 'WWW.Alpha.Example.:8081');
      expect(first.status).to.equal(200);
      expect(seenBy(first.text)).to.include({ host: ALPHA, xfh: ALPHA });
      for (const spelling of [ALPHA, `${ALPHA}.`, `${ALPHA}:80`, 'www.ALPHA.example']) {
        const again = await get('/page-host', spelling);
        expect(rawHeaders(again.text)['x-cache'], spelling).to.deep.equal(['HIT']);
        expect(seenBy(again.text)).to.include({ host: ALPHA });
      }
    });
  });

  it('matches a rule on the Host header against the normalised host', async () => {
    for (const [target, host] of [['/', 'staff.alpha.example'], ['/', 'STAFF.alpha.example.'], ['/', 'staff.alpha.example:80'], ['http://staff.alpha.example/', ALPHA]]) {
      expect((await get(target, host)).status, `${target} ${host}`).to.equal(403);
    }
  });

  it('never lets a client tell the origin another host, path, method or client address', async () => {
    const answer = await get('/claims', ALPHA, ['Forwarded: host=evil.example;proto=https', 'X-Original-URL: /admin', 'X-Rewrite-URL: /admin', 'X-HTTP-Method-Override: DELETE', 'X-Forwarded-Port: 8443', 'True-Client-IP: 6.6.6.6', 'X-Real-IP: 6.6.6.6']);
    expect(seenBy(answer.text)).to.deep.include({ claims: [], realIp: '127.0.0.1', url: '/claims', method: 'GET' });
  });

  it('finds the claims whatever the case and however often the client writes them, on an absolute-form target too', async () => {
    const claims = ['FORWARDED: host=evil.example', 'x-ORIGINAL-url: /admin', 'X-Rewrite-Url: /admin', 'x-rewrite-url: /admin', 'x-http-method-override: DELETE', 'X-Method-Override: PUT', 'X-FORWARDED-PORT: 8443', 'X-Forwarded-Scheme: https', 'true-CLIENT-ip: 6.6.6.6', 'x-real-IP: 6.6.6.6', 'X-CLIENT-IP: 6.6.6.6'];
    const origin = await get('/claims-spelled?x=1', ALPHA, claims);
    expect(seenBy(origin.text)).to.deep.include({ claims: [], realIp: '127.0.0.1', url: '/claims-spelled?x=1', method: 'GET' });
    const absolute = await sendRaw(edge.port, request(`http://${ALPHA.toUpperCase()}./claims-absolute`, ['Host: elsewhere.example', 'Connection: keep-alive, X-Kept', 'X-Kept: no', ...claims]));
    expect(seenBy(absolute.text)).to.deep.include({ claims: [], realIp: '127.0.0.1', url: '/claims-absolute', host: ALPHA });
    expect(rawHeaders(absolute.text)).to.have.property('x-request-id');
    expect(rawHeaders(absolute.text)).not.to.have.any.keys(...ORIGIN_SOFTWARE, 'x-internal');
  });

  describe('one normalised path for every rule', () => {
    for (const spelling of ['//admin', '/./admin', '/%2e/admin', '/.//admin', '/%61dmin%ff', '/x/../admin', '/%2E%2E/admin/', '/x/..%2Fadmin', '/..;/admin', '/;x/admin']) {
      it(`blocks ${spelling} with the WAF rule on /admin`, async () => {
        expect((await get(spelling)).status).to.equal(403);
      });
    }

    it('challenges every spelling of a challenged path', async () => {
      for (const spelling of ['/protected', '//protected', '/%70rotected', '/./protected/x']) {
        const answer = await get(spelling);
        expect(answer.status, spelling).to.equal(403);
        expect(answer.text, spelling).to.include('challenge');
      }
      expect(alphaOrigin.requests.filter((seen) => seen.url.includes('rotected'))).to.have.length(0);
    });

    it('counts every spelling of a path in one ip_path rate-limit counter', async () => {
      expect((await get('/login')).status).to.equal(200);
      expect((await get('/%6cogin')).status).to.equal(200);
      expect((await get('//log%69n')).status).to.equal(429);
    });

    it('sends the origin the path the cache key uses, so two spellings share one cached answer', async () => {
      const first = await get('/%70age-path/./a');
      expect(seenBy(first.text)).to.include({ url: '/page-path/a' });
      const second = await get('//page-path/a');
      expect(rawHeaders(second.text)['x-cache']).to.deep.equal(['HIT']);
    });

    it('redirects with a Location Node can send, whatever characters the path decodes to', async () => {
      const answer = await get('/moved/caf%C3%A9/%C4%8A');
      expect(answer.status).to.equal(301);
      expect(rawHeaders(answer.text).location).to.deep.equal(['/moved/caf%C3%A9/%C4%8A']);
    });

    it('refuses a malformed percent-escape in the path with 400', async () => {
      expect((await get('/a%zz')).status).to.equal(400);
    });
  });

  it('matches a query rule against every value of a repeated parameter', async () => {
    expect((await get('/q?debug=1&debug=0')).status).to.equal(403);
    expect((await get('/q?debug=0&debug=1')).status).to.equal(403);
    expect((await get('/q?debug=0&debug=2')).status).to.equal(200);
    // Names and values are read decoded, as origins read them.
    expect((await get('/q?%64ebug=1')).status).to.equal(403);
    expect((await get('/q?debug=%31&x=y')).status).to.equal(403);
  });

  describe('Upgrade requests', () => {
    it('gives an Upgrade other than WebSocket the whole pipeline, as any request', async () => {
      const answer = await get('/upgrade-h2c', ALPHA, ['Connection: Upgrade, HTTP2-Settings', 'Upgrade: h2c', 'HTTP2-Settings: AAMAAABkAAQAAP__']);
      expect(answer.status).to.equal(200);
      const headers = rawHeaders(answer.text);
      expect(headers).to.have.property('x-request-id');
      expect(headers).not.to.have.any.keys(...ORIGIN_SOFTWARE, 'x-internal');
      expect(seenBy(answer.text)).to.include({ verified: 'yes' });
      expect((await get('/admin', ALPHA, ['Connection: Upgrade', 'Upgrade: h2c'])).status).to.equal(403);
    });

    it('refuses an Upgrade other than WebSocket that carries a body, since Node stops parsing at its head', async () => {
      const before = alphaOrigin.requests.length;
      const answer = await sendRaw(edge.port, `POST /upgrade-body HTTP/1.1\r\nHost: ${ALPHA}\r\nConnection: Upgrade\r\nUpgrade: h2c\r\nContent-Length: 5\r\n\r\nhello`);
      expect(answer.status).to.equal(400);
      expect(rawHeaders(answer.text)['x-request-id']).to.have.length(1);
      expect(alphaOrigin.requests.length).to.equal(before);
    });

    it('refuses two Host lines and TRACE on an Upgrade request as on any other', async () => {
      const before = alphaOrigin.requests.length;
      expect((await get('/', ALPHA, [`Host: ${BETA}`, 'Connection: Upgrade', 'Upgrade: websocket'])).status).to.equal(400);
      expect((await get('/', ALPHA, ['Cookie: session=1', 'Connection: Upgrade', 'Upgrade: websocket'], 'TRACE')).status).to.equal(405);
      expect(alphaOrigin.requests.length).to.equal(before);
    });

    it('cleans the origin\'s 101 with the response phases and stamps X-Request-Id', async () => {
      const answer = await get('/socket', ALPHA, ['Connection: Upgrade', 'Upgrade: websocket', 'Sec-WebSocket-Version: 13', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==']);
      expect(answer.status).to.equal(101);
      const headers = rawHeaders(answer.text);
      expect(headers).to.include.keys('x-request-id', 'upgrade', 'connection');
      expect(headers).not.to.have.any.keys('server', 'x-internal');
      expect(alphaOrigin.requests.at(-1)?.headers).to.include({ host: ALPHA, 'x-edge-verified': 'yes' });
    });
  });

  it('sends the origin each header the edge sets once, and the client\'s repeated lines as Node joined them, whatever their spelling', async () => {
    const answer = await sendRaw(edge.port, request(`http://${ALPHA.toUpperCase()}.:80/forwarded-lines?a=1&a=2`, [
      'HOST: elsewhere.example', 'Keep-Alive: timeout=5', 'TE: trailers', 'Proxy-Connection: keep-alive', 'Connection: keep-alive',
      'X-Forwarded-For: 6.6.6.6', 'x-forwarded-for: 7.7.7.7', 'X-FORWARDED-HOST: evil.example', 'X-Forwarded-Proto: https',
      'CDN-LOOP: other-cdn', 'X-Dup: a', 'x-dup: b', 'Content-Length: 0',
    ]));
    const seen = seenBy(answer.text);
    const values = (name: string) => seen.fields.filter(([field]) => field === name).map(([, value]) => value);
    expect(seen.url).to.equal('/forwarded-lines?a=1&a=2');
    // Loopback is a trusted proxy in this suite: the address believed is the chain's last one, sent alone.
    expect([values('host'), values('x-forwarded-host'), values('x-forwarded-for'), values('x-real-ip'), values('x-forwarded-proto')]).to.deep.equal([[ALPHA], [ALPHA], ['7.7.7.7'], ['7.7.7.7'], ['http']]);
    expect(values('cdn-loop')).to.have.length(1);
    expect(values('cdn-loop')[0]).to.match(/^other-cdn, edge-[0-9a-f]{16}$/);
    expect(values('x-dup')).to.deep.equal(['a, b']);
    // A GET's empty body is sent without framing: undici leaves out Content-Length: 0 for a method that expects none.
    expect(values('content-length')).to.deep.equal([]);
    expect(seen.fields.map(([name]) => name)).not.to.include.members(['keep-alive', 'te', 'proxy-connection']);
  });

  it('applies request-header rules after removing what the client\'s Connection names', async () => {
    const answer = await get('/connection-named', ALPHA, ['Connection: keep-alive, X-Edge-Verified', 'X-Edge-Verified: forged']);
    expect(seenBy(answer.text)).to.include({ verified: 'yes' });
    const unnamed = await get('/connection-unnamed', ALPHA, ['Connection: X-Edge-Verified']);
    expect(seenBy(unnamed.text)).to.include({ verified: 'yes' });
    const twoLines = await get('/connection-two-lines', ALPHA, ['Connection: keep-alive', 'Connection: x-forwarded-port, X-EDGE-VERIFIED', 'X-Forwarded-Port: 1']);
    expect(seenBy(twoLines.text)).to.include({ verified: 'yes' });
    expect(seenBy(twoLines.text).claims).to.deep.equal([]);
  });

  describe('/__cdn_reload_config', () => {
    it('refuses a client relayed by a trusted proxy on loopback', async () => {
      const answer = await sendRaw(edge.port, request('/__cdn_reload_config', ['Host: 127.0.0.1', 'X-Forwarded-For: 203.0.113.99']));
      expect(answer.status).to.equal(403);
    });

    it('answers a local operator', async () => {
      expect((await sendRaw(edge.port, request('/__cdn_reload_config', ['Host: 127.0.0.1']), 12000)).status).to.equal(200);
    });

    it('leaves longer paths to the site', async () => {
      const answer = await get('/__cdn_reload_configuration');
      expect(answer.status).to.equal(200);
      expect(seenBy(answer.text)).to.include({ origin: 'alpha', url: '/__cdn_reload_configuration' });
    });
  });

  describe('X-Request-Id on every answer', () => {
    const cases: [string, string | Buffer, number][] = [
      ['CONNECT', request('www.alpha.example:443', [`Host: ${ALPHA}`], 'CONNECT'), 405],
      ['TRACK', request('/', [`Host: ${ALPHA}`], 'TRACK'), 405],
      ['an unknown method', request('/', [`Host: ${ALPHA}`], 'BREW'), 405],
      ['headers over 16 KiB', request('/', [`Host: ${ALPHA}`, `X-Big: ${'b'.repeat(17000)}`]), 431],
      ['bytes the parser refuses', Buffer.from(Array.from({ length: 64 }, (_, n) => (n * 37) % 256)), 400],
      ['a smuggling attempt', `POST / HTTP/1.1\r\nHost: ${ALPHA}\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`, 400],
      ['an edge endpoint that does not exist', request('/health', ['Host: 127.0.0.1'], 'POST'), 404],
    ];
    for (const [name, bytes, status] of cases) {
      it(`stamps ${name} (${status})`, async () => {
        const answer = await sendRaw(edge.port, bytes);
        expect(answer.status).to.equal(status);
        expect(rawHeaders(answer.text)['x-request-id'], answer.text.slice(0, 300)).to.have.length(1);
      });
    }

    it('names the allowed methods in the 405 to an unknown method', async () => {
      const answer = await sendRaw(edge.port, request('/', [`Host: ${ALPHA}`], 'TRACK'));
      expect(rawHeaders(answer.text).allow?.[0]).to.include('GET');
    });
  });

  it('counts usage by the normalised host and path, however the client spelled them', async () => {
    const path = '/usage-spelling';
    const spellings = [
      get(path),
      get(path, 'WWW.Alpha.EXAMPLE'),
      get(path, 'www.alpha.example.'),
      get(path, 'www.alpha.example:80'),
      get(`http://www.alpha.example${path}`, BETA),
      get(`${path}?a=1&b=2`),
    ];
    for (const answer of await Promise.all(spellings)) expect(answer.status).to.equal(200);
    const rows = await eventually('the six requests in analytics', async () => {
      const found = await core.db.usageEvent.findMany({ where: { path: { contains: 'usage-spelling' } }, select: { domain: true, path: true, count: true } });
      return found.reduce((sum, row) => sum + row.count, 0) >= spellings.length ? found : undefined;
    });
    expect(new Set(rows.map((row) => `${row.domain} ${row.path}`))).to.deep.equal(new Set([`${ALPHA} ${path}`]));
    expect(rows.reduce((sum, row) => sum + row.count, 0)).to.equal(spellings.length);
  });

  it('reads a trusted upstream\'s country from the headers as the door left them, in any spelling of name, host and path', async () => {
    // The peer is loopback, a trusted proxy here: its X-CDN-Country decides (WAF rule "no FR" on /geo).
    expect((await get('/geo', ALPHA, ['X-CDN-COUNTRY: fr'])).status).to.equal(403);
    expect((await get('/geo?x=1', 'WWW.Alpha.Example.:80', ['x-cdn-country: FR'])).status).to.equal(403);
    expect((await get('http://www.alpha.example/%67eo', BETA, ['X-Cdn-Country:  FR '])).status).to.equal(403);
    expect((await get('/geo', ALPHA, ['X-CDN-Country: DE'])).status).to.equal(200);
    // Trust is the connecting peer's, not the client address X-Forwarded-For names behind it.
    expect((await get('/geo', ALPHA, ['X-Forwarded-For: 203.0.113.9', 'X-CDN-Country: FR'])).status).to.equal(403);
    // A header the client's Connection names was for the hop to the edge: removed at the door, it decides nothing.
    expect((await get('/geo', ALPHA, ['Connection: keep-alive, X-CDN-Country', 'X-CDN-Country: FR'])).status).to.equal(200);
  });

  describe('cached answers on one connection, their heads written by the edge (pipeline/serialised-head.ts)', () => {
    // Every answer of a raw exchange, each framed by its Content-Length, until the edge closes or 3 s pass.
    const exchange = (bytes: string): Promise<{ answers: string[]; closed: boolean }> =>
      new Promise((resolve) => {
        const socket = net.connect(edge.port, '127.0.0.1', () => socket.write(bytes, 'latin1'));
        let text = '';
        const done = (closed: boolean) => {
          socket.destroy();
          const answers: string[] = [];
          while (text.includes('\r\n\r\n')) {
            const end = text.indexOf('\r\n\r\n') + 4;
            const length = Number(rawHeaders(text.slice(0, end))['content-length']?.[0] ?? 0);
            answers.push(text.slice(0, end + length));
            text = text.slice(end + length);
          }
          resolve({ answers, closed });
        };
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
        socket.on('close', () => done(true));
        socket.on('error', () => undefined);
        setTimeout(() => done(false), 3000).unref();
      });
    const hit = (answer: string, label: string) => {
      const headers = rawHeaders(answer);
      expect(answer, label).to.match(/^HTTP\/1\.1 200 OK\r\n/);
      expect(headers['x-cache'], label).to.deep.equal(['HIT']);
      expect(headers['content-length'], label).to.deep.equal([String(Buffer.byteLength(rawBody(answer), 'latin1'))]);
      expect(seenBy(answer), label).to.include({ host: ALPHA, url: '/page-wire?a=1' });
      expect(headers, label).not.to.have.any.keys(...ORIGIN_SOFTWARE, 'x-internal', 'transfer-encoding');
      expect(headers, label).to.have.property('x-request-id');
      return headers;
    };

    it('keeps the connection for every spelling of the same cached object, pipelined, and closes it when asked however Connection is spelled', async () => {
      expect(rawHeaders((await get('/page-wire?a=1')).text)['x-cache']).to.deep.equal(['MISS']);
      const spellings = [
        request('/page-wire?a=1', ['Host: WWW.Alpha.Example.:80', 'cOnNeCtIoN: keep-alive']),
        request('http://www.alpha.example/%70age-wire?a=1', ['Host: elsewhere.example', 'Connection: keep-alive, X-Kept', 'X-Kept: 1']),
        request('//page-wire/./?a=1'.replace('/./?', '?'), [`Host: ${ALPHA}`, 'Keep-Alive: timeout=1', 'TE: trailers', 'Connection: TE']),
        request('/page-wire?a=1', [`host: ${ALPHA}`, 'EXPECT: 100-continue']),
      ];
      // The last asks for a 100, queued behind the others: Node would have put that 100 between its
      // answer's head and body. It gets no 100, its answer whole, and the connection closes after it.
      const kept = await exchange(spellings.join(''));
      expect(kept.answers).to.have.length(spellings.length);
      kept.answers.forEach((answer, index) => {
        const headers = hit(answer, `request ${index + 1}`);
        expect(headers.connection, `request ${index + 1}`).to.deep.equal([index < spellings.length - 1 ? 'keep-alive' : 'close']);
      });
      expect(kept.closed).to.equal(true);
      for (const closing of [['CONNECTION: Close'], ['Connection: keep-alive, close'], ['connection:close']]) {
        const closed = await exchange(request('/page-wire?a=1', [`Host: ${ALPHA}`, ...closing]) + request('/page-wire?a=1', [`Host: ${ALPHA}`]));
        // Nothing after a close is served (RFC 9112 §9.6): Node's parser refuses it, with the door's 400.
        expect(closed.answers.slice(1).every((answer) => answer.startsWith('HTTP/1.1 400 ')), closing[0]).to.equal(true);
        expect(hit(closed.answers[0], closing[0]).connection, closing[0]).to.deep.equal(['close']);
        expect(closed.closed, closing[0]).to.equal(true);
      }
    });

    it('still sends 100 Continue to the connection\'s current request, before reading its body', async () => {
      const answer = await new Promise<string>((resolve) => {
        const socket = net.connect(edge.port, '127.0.0.1', () => socket.write(request('/upload', [`Host: ${ALPHA}`, 'Content-Length: 2', 'Expect: 100-continue'], 'POST')));
        let text = '';
        socket.on('data', (chunk: Buffer) => {
          text += chunk.toString('latin1');
          if (text === 'HTTP/1.1 100 Continue\r\n\r\n') socket.write('ok');
          if (text.includes('"origin"')) socket.end();
        });
        socket.on('close', () => resolve(text));
        setTimeout(() => socket.destroy(), 3000).unref();
      });
      expect(answer).to.match(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
      expect(seenBy(answer.slice(answer.indexOf('\r\n\r\n') + 4))).to.include({ method: 'POST', url: '/upload' });
    });

    it('answers HTTP/1.0 with keep-alive only when the client asked for it, in any case', async () => {
      const asked = await exchange(`GET /page-wire?a=1 HTTP/1.0\r\nHost: ${ALPHA}\r\nConnection: Keep-Alive\r\n\r\n`);
      expect(asked.closed).to.equal(false);
      expect(hit(asked.answers[0], 'HTTP/1.0 keep-alive').connection).to.deep.equal(['keep-alive']);
      const plain = await exchange(`GET /page-wire?a=1 HTTP/1.0\r\nHost: ${ALPHA}\r\n\r\n`);
      expect(plain.closed).to.equal(true);
      expect(hit(plain.answers[0], 'HTTP/1.0').connection).to.deep.equal(['close']);
    });
  });

  it('is still whole afterwards: no worker exited and no pipeline failure', () => {
    expect(edge.output).not.to.include('edge worker exited');
    expect(edge.output).not.to.include('edge pipeline failed');
  });
});

import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { OriginBreakers } from '../../../src/edge/origin/breaker.js';
import { OriginHealthView } from '../../../src/edge/origin/health-view.js';
import type { OriginObservation } from '../../../src/edge/origin/observation.js';
import { createOriginFetcher, type OriginFetcherOptions } from '../../../src/edge/origin/proxy.js';
import type { ActiveDomain } from '../../../src/edge/config/active-config.js';
import { startRawOrigin, type RawOrigin, type RawOriginRequest } from '../../support/raw-origin.js';
import { activeDomain, closedPort, listen, origin, request, sleep, startEdge, startOrigin, TEST_CONFIG, type TestServer } from './support.js';

type RawResponse = { status: number; head: string; body: string; length: number };

/** The first whole HTTP/1.1 response in `bytes` (Content-Length or chunked framing), or undefined while it is incomplete. */
function readRawResponse(bytes: Buffer): RawResponse | undefined {
  const text = bytes.toString('latin1');
  const headEnd = text.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const head = text.slice(0, headEnd);
  const status = Number(head.slice(9, 12));
  let at = headEnd + 4;
  const length = /\r\ncontent-length: *(\d+)/i.exec(head);
  if (length) {
    const end = at + Number(length[1]);
    return end > text.length ? undefined : { status, head, body: text.slice(at, end), length: end };
  }
  let body = '';
  for (;;) {
    const lineEnd = text.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(text.slice(at, lineEnd), 16);
    if (size === 0) return text.startsWith('\r\n', lineEnd + 2) ? { status, head, body, length: lineEnd + 4 } : undefined;
    if (lineEnd + 2 + size + 2 > text.length) return undefined;
    body += text.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}

type Rig = { edge: TestServer & { contexts: { originId: string | undefined }[] }; observations: OriginObservation[]; breakers: OriginBreakers };

describe('edge origin proxy', function () {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function originServer(handler: http.RequestListener): Promise<TestServer> {
    const server = await startOrigin(handler);
    cleanups.push(() => server.close());
    return server;
  }

  // A raw client connection that starts a chunked PUT /upload with 1 KB of it. `finishThenAskNext` sends 2 MB more (far more
  // than the socket and stream buffers hold: unread, it would stop the connection), ends it, asks GET /next on the same
  // connection, and answers the status lines the client got once /next was answered (or after 3 s).
  function startUpload(port: number): { received: () => string; finishThenAskNext: () => Promise<string[] | null> } {
    const client = net.connect(port, '127.0.0.1');
    cleanups.push(() => client.destroy());
    let received = '';
    client.setEncoding('latin1');
    client.on('data', (text: string) => (received += text));
    client.write(`PUT /upload HTTP/1.1\r\nHost: example.test\r\nTransfer-Encoding: chunked\r\n\r\n400\r\n${'a'.repeat(0x400)}\r\n`);
    const finishThenAskNext = async (): Promise<string[] | null> => {
      for (let count = 0; count < 32; count++) client.write(`10000\r\n${'b'.repeat(0x10000)}\r\n`);
      client.write('0\r\n\r\nGET /next HTTP/1.1\r\nHost: example.test\r\n\r\n');
      for (let waited = 0; waited < 150 && !received.endsWith('next'); waited++) await sleep(20);
      return received.match(/HTTP\/1\.1 \d+/g);
    };
    return { received: () => received, finishThenAskNext };
  }

  async function rawOrigin(onRequest: (request: RawOriginRequest) => void): Promise<RawOrigin> {
    const server = await startRawOrigin(onRequest);
    cleanups.push(() => server.close());
    return server;
  }

  async function rig(domain: ActiveDomain, overrides: Partial<OriginFetcherOptions> = {}): Promise<Rig> {
    const observations: OriginObservation[] = [];
    const breakers = new OriginBreakers();
    const health = new OriginHealthView({ onObservation: (observation) => observations.push(observation) });
    const fetcher = createOriginFetcher({ config: TEST_CONFIG, health, breakers, ...overrides });
    const edge = await startEdge(domain, fetcher);
    cleanups.push(() => fetcher.close(), () => edge.close());
    return { edge, observations, breakers };
  }

  it('forwards the request with X-Forwarded-*, the shield secret and the origin Host header, minus hop-by-hop headers', async () => {
    let seen: http.IncomingHttpHeaders = {};
    let target = '';
    const server = await originServer((req, res) => {
      seen = req.headers;
      target = req.url ?? '';
      res.setHeader('x-origin', 'yes');
      res.end('hello');
    });
    const domain = activeDomain([origin({ port: server.port, host_header: 'backend.internal' })], { header_name: 'X-Shield-Key', secret: 's3cret' });
    const { edge, observations } = await rig(domain);
    const reply = await request(edge.port, { path: '/a/b?x=1', headers: { 'x-forwarded-for': '6.6.6.6', 'x-shield-key': 'forged', 'keep-alive': 'timeout=5', 'x-custom': 'kept' } });
    expect(reply).to.include({ status: 200, body: 'hello' });
    expect(reply.headers['x-origin']).to.equal('yes');
    expect(target).to.equal('/a/b?x=1');
    expect(seen).to.include({ host: 'backend.internal', 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'http', 'x-forwarded-host': 'example.test', 'x-shield-key': 's3cret', 'x-custom': 'kept' });
    expect(seen).to.not.have.any.keys('keep-alive', 'via');
    expect(edge.contexts[0].originId).to.equal(domain.origins[0].id);
    expect(observations[0]).to.include({ origin_id: domain.origins[0].id, source: 'passive', success: true, http_status: 200 });
  });

  it('passes on a body that arrived whole with its headers, an empty one too, and keeps using the one origin connection', async () => {
    const sockets = new Set<unknown>();
    const server = await originServer((req, res) => {
      sockets.add(req.socket);
      const body = req.url === '/empty' ? '' : `whole ${req.url}`;
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
    const { edge } = await rig(activeDomain([origin({ port: server.port })]));
    const replies = [];
    for (const path of ['/a', '/empty', '/b']) replies.push(await request(edge.port, { path }));
    expect(replies.map((reply) => [reply.status, reply.body])).to.deep.equal([[200, 'whole /a'], [200, ''], [200, 'whole /b']]);
    expect(replies[1].headers['content-length']).to.equal('0');
    expect(sockets.size).to.equal(1);
  });

  it('frames a chunked body that arrived whole for a raw client, without the hop-by-hop headers the origin named, twice on one connection each side', async () => {
    const server = await rawOrigin((request) => {
      const head = 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive, X-Hop\r\nX-Hop: origin-only\r\n\r\n';
      request.socket.write(`${head}6\r\nwhole \r\n${request.target.length.toString(16)}\r\n${request.target}\r\n0\r\n\r\n`);
    });
    const { edge } = await rig(activeDomain([origin({ port: server.port })]));
    const client = net.connect(edge.port, '127.0.0.1');
    cleanups.push(() => client.destroy());
    let received = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
    const responses: RawResponse[] = [];
    for (const target of ['/a?q=%41&q=b', '/b']) {
      client.write(`GET ${target} HTTP/1.1\r\nHOST: Example.TEST\r\nConnection: keep-alive\r\n\r\n`);
      for (let waited = 0; !readRawResponse(received); waited += 10) {
        if (waited > 3000) throw new Error(`no whole response: ${JSON.stringify(received.toString('latin1'))}`);
        await sleep(10);
      }
      const response = readRawResponse(received)!;
      received = received.subarray(response.length);
      responses.push(response);
    }
    expect(responses.map((response) => [response.status, response.body])).to.deep.equal([[200, 'whole /a?q=%41&q=b'], [200, 'whole /b']]);
    for (const response of responses) expect(response.head.toLowerCase()).to.not.include('x-hop');
    expect(received.length).to.equal(0);
    expect(server.requests.map((request) => request.target)).to.deep.equal(['/a?q=%41&q=b', '/b']);
    expect(server.connections).to.equal(1);
  });

  it('passes an origin 5xx through unchanged and counts it as an HTTP failure', async () => {
    const server = await originServer((_req, res) => {
      res.statusCode = 503;
      res.end('origin says no');
    });
    const { edge, observations } = await rig(activeDomain([origin({ port: server.port })]));
    expect(await request(edge.port)).to.include({ status: 503, body: 'origin says no' });
    expect(observations[0]).to.include({ success: false, failure_kind: 'http', http_status: 503 });
  });

  it('passes a three-digit status above 599 through and counts it as an HTTP failure', async () => {
    const server = await rawOrigin((request) => request.respond('HTTP/1.1 999 Odd', 'odd'));
    const { edge, observations } = await rig(activeDomain([origin({ port: server.port })]));
    expect(await request(edge.port)).to.include({ status: 999, body: 'odd' });
    expect(observations[0]).to.include({ success: false, failure_kind: 'http', http_status: 999 });
  });

  it('answers 502 to a status below 100, without retrying it, and counts it as an HTTP failure', async () => {
    const server = await rawOrigin((request) => request.respond('HTTP/1.1 099 Low', 'low'));
    const spare = await originServer((_req, res) => res.end('spare'));
    const { edge, observations } = await rig(activeDomain([origin({ port: server.port }), origin({ port: spare.port, role: 'backup' })]));
    const reply = await request(edge.port);
    expect(reply.status).to.equal(502);
    expect(reply.body).to.contain('cannot pass on');
    expect([server.requests.length, spare.requests]).to.deep.equal([1, 0]);
    expect(observations[0]).to.include({ success: false, failure_kind: 'http', http_status: null, detail: 'status 99 Low' });
  });

  const unparsable: [string, (request: RawOriginRequest) => void][] = [
    ['a status line that does not parse', (request) => request.respond('HTTP/1.1 1000 Big', 'big')],
    ['a 101 to a request that asked for no upgrade', (request) => request.socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n')],
  ];
  for (const [what, answer] of unparsable) {
    it(`answers 502 to ${what}, without retrying it, and counts it as an HTTP failure`, async () => {
      const server = await rawOrigin(answer);
      const spare = await originServer((_req, res) => res.end('spare'));
      const { edge, observations } = await rig(activeDomain([origin({ port: server.port }), origin({ port: spare.port, role: 'backup' })]));
      expect((await request(edge.port)).status).to.equal(502);
      expect([server.requests.length, spare.requests]).to.deep.equal([1, 0]);
      expect(observations[0]).to.include({ success: false, failure_kind: 'http', http_status: null });
    });
  }

  it('answers 502 to an unsolicited 100 Continue without retrying it or holding it against the origin (its HTTP client cannot take one; RFC 9110 allows it)', async () => {
    const server = await rawOrigin((request) => request.socket.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'));
    const spare = await originServer((_req, res) => res.end('spare'));
    const target = origin({ port: server.port, circuit_breaker: { failure_threshold: 2, window_seconds: 60, cooldown_seconds: 60 } });
    const failed: string[] = [];
    const metrics = { originFailed: (kind: string) => void failed.push(kind), originResponded: () => {}, originRetry: () => {} };
    const { edge, observations, breakers } = await rig(activeDomain([target, origin({ port: spare.port, role: 'backup' })]), { metrics });
    for (let round = 0; round < 4; round++) expect((await request(edge.port)).status).to.equal(502);
    expect([server.requests.length, spare.requests]).to.deep.equal([4, 0]);
    expect(failed, 'counted in the origin error metric').to.deep.equal(new Array(4).fill('invalid_response'));
    expect(observations.filter((observation) => !observation.success)).to.deep.equal([]);
    expect(breakers.state(target, Date.now())).to.equal('closed');
  });

  it('keeps the origin connection after a HEAD, as after a GET', async () => {
    const server = await rawOrigin((request) => request.respond('HTTP/1.1 200 OK', request.method === 'HEAD' ? '' : 'body'));
    const { edge } = await rig(activeDomain([origin({ port: server.port })]));
    for (const method of ['GET', 'GET', 'HEAD', 'GET']) expect((await request(edge.port, { method })).status).to.equal(200);
    expect(server.requests.map((request) => `${request.method} ${request.sequence}`)).to.deep.equal(['GET 0', 'GET 1', 'HEAD 2', 'GET 3']);
    expect(server.connections).to.equal(1);
  });

  // Headers the client's Connection names are removed at the door (pipeline/request-head.ts), which this rig does not run:
  // test/e2e/edge/request-confusion.test.ts sends them through a whole edge.
  it('sends the origin one Host line, no hop-by-hop header, the client\'s repeated and oddly cased headers merged, and keep-alive (raw sockets both sides)', async () => {
    let head = '';
    const originSocket = net.createServer((socket) => {
      socket.once('data', (chunk: Buffer) => {
        head = chunk.toString('latin1').split('\r\n\r\n')[0];
        socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
      });
    });
    await new Promise<void>((resolve) => originSocket.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => originSocket.close(resolve)));
    const { edge } = await rig(activeDomain([origin({ port: (originSocket.address() as net.AddressInfo).port })]));
    const client = net.connect(edge.port, '127.0.0.1');
    cleanups.push(() => client.destroy());
    let received = '';
    client.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    client.write(['GET /a%2Fb?q=%41&q=b HTTP/1.1', 'hOsT: example.test', 'Connection: keep-alive', 'Keep-Alive: timeout=5', 'TE: trailers', 'Proxy-Connection: keep-alive', 'ACCEPT: text/html', 'accept: application/json', 'X-Forwarded-For: 198.51.100.7', '', ''].join('\r\n'));
    for (let waited = 0; waited < 150 && !received.endsWith('ok'); waited++) await sleep(20);
    const [requestLine, ...lines] = head.split('\r\n');
    const named = (name: string) => lines.filter((line) => line.toLowerCase().startsWith(`${name}:`)).map((line) => line.slice(name.length + 1).trim());
    expect(requestLine).to.equal('GET /a%2Fb?q=%41&q=b HTTP/1.1');
    expect(named('host')).to.deep.equal(['example.test']);
    expect(named('connection')).to.deep.equal(['keep-alive']);
    expect(named('accept')).to.deep.equal(['text/html, application/json']);
    expect(named('x-forwarded-for')).to.deep.equal(['203.0.113.9']);
    for (const hop of ['keep-alive', 'te', 'proxy-connection', 'transfer-encoding', 'content-length']) expect(named(hop), hop).to.deep.equal([]);
    expect(received).to.match(/^HTTP\/1\.1 200 /);
  });

  it('reads an interim 103 and passes on only the final answer', async () => {
    const server = await rawOrigin((request) => request.socket.write('HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfinal'));
    const { edge, observations } = await rig(activeDomain([origin({ port: server.port })]));
    const reply = await request(edge.port);
    expect(reply).to.include({ status: 200, body: 'final' });
    expect(reply.headers.link).to.equal(undefined);
    expect(observations[0]).to.include({ success: true });
  });

  it('merges a repeated response header as Node does: Set-Cookie a list, a single-valued header its first value, others joined (raw client)', async () => {
    const head = ['HTTP/1.1 200 OK', 'Content-Type: text/plain', 'Content-Type: text/html', 'Cache-Control: public', 'Cache-Control: max-age=60', 'Set-Cookie: a=1', 'Set-Cookie: b=2', 'X-Tag: one', 'X-Tag: two', 'Content-Length: 2'];
    const server = await rawOrigin((request) => request.socket.write(`${head.join('\r\n')}\r\n\r\nok`));
    const { edge } = await rig(activeDomain([origin({ port: server.port })]));
    const client = net.connect(edge.port, '127.0.0.1');
    cleanups.push(() => client.destroy());
    let received = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
    client.write('GET / HTTP/1.1\r\nHost: example.test\r\n\r\n');
    for (let waited = 0; !readRawResponse(received); waited += 10) {
      if (waited > 3000) throw new Error(`no whole response: ${JSON.stringify(received.toString('latin1'))}`);
      await sleep(10);
    }
    const response = readRawResponse(received)!;
    const lines = response.head.split('\r\n').slice(1).map((line) => line.toLowerCase());
    const named = (name: string) => lines.filter((line) => line.startsWith(`${name}:`));
    expect(response.body).to.equal('ok');
    expect(named('content-type')).to.deep.equal(['content-type: text/plain']);
    expect(named('cache-control')).to.deep.equal(['cache-control: public, max-age=60']);
    expect(named('x-tag')).to.deep.equal(['x-tag: one, two']);
    expect(named('set-cookie')).to.deep.equal(['set-cookie: a=1', 'set-cookie: b=2']);
  });

  it('retries a GET on the next origin after a connect failure', async () => {
    const good = await originServer((_req, res) => res.end('from good'));
    const dead = origin({ port: await closedPort() });
    const alive = origin({ port: good.port, role: 'backup' });
    const { edge, observations } = await rig(activeDomain([dead, alive]));
    expect(await request(edge.port)).to.include({ status: 200, body: 'from good' });
    expect(good.requests).to.equal(1);
    expect(edge.contexts[0].originId).to.equal(alive.id);
    expect(observations.map((o) => [o.origin_id, o.failure_kind])).to.deep.equal([[dead.id, 'connect'], [alive.id, null]]);
  });

  it('never retries a POST, even when another origin is up', async () => {
    const failing = await originServer((req) => req.socket.destroy());
    const spare = await originServer((_req, res) => res.end('spare'));
    const { edge } = await rig(activeDomain([origin({ port: failing.port }), origin({ port: spare.port, role: 'backup' })]));
    expect((await request(edge.port, { method: 'POST', body: 'name=value' })).status).to.equal(502);
    expect([failing.requests, spare.requests]).to.deep.equal([1, 0]);
    expect(await request(edge.port, { method: 'GET' })).to.include({ status: 200, body: 'spare' });
  });

  it('retries a POST when the origin allows non-idempotent retries and no body byte was sent', async () => {
    const spare = await originServer((req, res) => req.resume().on('end', () => res.end('spare')));
    const retries = { max: 1, non_idempotent: true, budget_percent: 20, budget_min_per_second: 5 };
    const { edge } = await rig(activeDomain([origin({ port: await closedPort(), retries }), origin({ port: spare.port, role: 'backup' })]));
    expect(await request(edge.port, { method: 'POST', body: 'name=value' })).to.include({ status: 200, body: 'spare' });
  });

  it('answers 502 with a CDN error page when no origin accepts connections', async () => {
    const { edge } = await rig(activeDomain([origin({ port: await closedPort() })]));
    const reply = await request(edge.port);
    expect(reply.status).to.equal(502);
    expect(reply.body).to.contain('could not connect').and.not.contain('127.0.0.1');
  });

  it('answers 504 after one read timeout of a single origin, without waiting for it a second time', async () => {
    const silent = await originServer(() => {});
    const { edge, observations } = await rig(activeDomain([origin({ port: silent.port, timeouts: { connect_ms: 1000, read_ms: 1000 } })]));
    const started = Date.now();
    const reply = await request(edge.port);
    const waited = Date.now() - started;
    expect(reply.status).to.equal(504);
    expect(waited).to.be.within(950, 1500);
    expect(silent.requests).to.equal(1);
    expect(observations[0]).to.include({ success: false, failure_kind: 'timeout' });
  });

  it('does not retry a timeout on another origin entry at the same address', async () => {
    const silent = await originServer(() => {});
    const timeouts = { connect_ms: 1000, read_ms: 300 };
    const { edge } = await rig(activeDomain([origin({ port: silent.port, timeouts }), origin({ port: silent.port, timeouts, role: 'backup' })]));
    expect((await request(edge.port)).status).to.equal(504);
    expect(silent.requests).to.equal(1);
  });

  it('retries a timeout on the next origin when it is another server', async () => {
    const silent = await originServer(() => {});
    const spare = await originServer((_req, res) => res.end('spare'));
    const { edge } = await rig(activeDomain([origin({ port: silent.port, timeouts: { connect_ms: 1000, read_ms: 300 } }), origin({ port: spare.port, role: 'backup' })]));
    expect(await request(edge.port)).to.include({ status: 200, body: 'spare' });
    expect([silent.requests, spare.requests]).to.deep.equal([1, 1]);
  });

  it('counts a failed attempt once per attempt and a refusal before any attempt once per request', async () => {
    const failures: string[] = [];
    const metrics = { originResponded: () => undefined, originFailed: (kind: string) => void failures.push(kind), originRetry: () => undefined };
    const down = origin({ port: await closedPort(), retries: { max: 0, non_idempotent: false, budget_percent: 20, budget_min_per_second: 5 }, circuit_breaker: { failure_threshold: 1, window_seconds: 10, cooldown_seconds: 60 } });
    const { edge } = await rig(activeDomain([down]), { metrics });
    expect((await request(edge.port)).status).to.equal(502);
    expect((await request(edge.port)).status).to.equal(503);
    expect((await request(edge.port, { method: 'POST', headers: { 'content-length': String(TEST_CONFIG.edgeClientMaxBodyBytes + 1) } })).status).to.equal(413);
    expect(failures).to.deep.equal(['connect', 'breaker_open', 'too_large']);
  });

  it('opens the breaker after failure_threshold failures and closes it after the cooldown', async () => {
    let healthy = false;
    const server = await originServer((_req, res) => {
      res.statusCode = healthy ? 200 : 500;
      res.end();
    });
    const target = origin({ port: server.port, circuit_breaker: { failure_threshold: 3, window_seconds: 10, cooldown_seconds: 1 } });
    const { edge, breakers } = await rig(activeDomain([target]));
    for (let i = 0; i < 3; i++) expect((await request(edge.port)).status).to.equal(500);
    expect(breakers.state(target, Date.now())).to.equal('open');
    const refused = await request(edge.port);
    expect(refused.status).to.equal(503);
    expect(server.requests).to.equal(3);
    healthy = true;
    await sleep(1100);
    expect((await request(edge.port)).status).to.equal(200);
    expect(breakers.state(target, Date.now())).to.equal('closed');
  });

  it('aborts the origin request when the client leaves, without holding it against the origin', async () => {
    let originSawClose = false;
    const server = await originServer((req) => req.socket.once('close', () => (originSawClose = true)));
    const { edge, observations } = await rig(activeDomain([origin({ port: server.port })]));
    const client = http.get({ host: '127.0.0.1', port: edge.port, path: '/', headers: { host: 'example.test' }, agent: false });
    client.on('error', () => {});
    await sleep(150);
    client.destroy();
    await sleep(150);
    expect(originSawClose).to.equal(true);
    expect(observations).to.deep.equal([]);
  });

  it('refuses a Content-Length above the limit with 413 before connecting', async () => {
    const server = await originServer((_req, res) => res.end());
    const { edge } = await rig(activeDomain([origin({ port: server.port })]));
    const reply = await request(edge.port, { method: 'POST', body: Buffer.alloc(TEST_CONFIG.edgeClientMaxBodyBytes + 1) });
    expect(reply.status).to.equal(413);
    expect(server.requests).to.equal(0);
  });

  it('aborts a chunked body with 413 once it passes the limit', async () => {
    let received = 0;
    const server = await originServer((req) => req.on('data', (chunk: Buffer) => (received += chunk.length)));
    const { edge } = await rig(activeDomain([origin({ port: server.port })]));
    const chunk = Buffer.alloc(64 * 1024);
    let sent = 0;
    const body = new Readable({
      read() {
        sent += chunk.length;
        this.push(sent > 4 * TEST_CONFIG.edgeClientMaxBodyBytes ? null : chunk);
      },
    });
    const reply = await request(edge.port, { method: 'PUT', body, headers: { 'transfer-encoding': 'chunked' } }).catch((error: Error) => ({ status: 0, error }));
    expect(reply.status).to.equal(413);
    expect(received).to.be.at.most(TEST_CONFIG.edgeClientMaxBodyBytes);
  });

  it('reads and drops the rest of an upload the origin failed on, so that the kept-alive client connection serves its next request', async () => {
    const server = await originServer((req, res) => {
      if (req.method === 'GET') return void res.end('next');
      req.once('data', () => req.socket.destroy());
    });
    const { edge } = await rig(activeDomain([origin({ port: server.port })]));
    const upload = startUpload(edge.port);
    for (let wait = 0; wait < 100 && !upload.received().includes('\r\n\r\n'); wait++) await sleep(20);
    expect(upload.received()).to.match(/^HTTP\/1\.1 502 /);
    expect(await upload.finishThenAskNext()).to.deep.equal(['HTTP/1.1 502', 'HTTP/1.1 200']);
  });

  it('streams a request body to the origin', async () => {
    let total = 0;
    const server = await originServer((req, res) => {
      req.on('data', (chunk: Buffer) => (total += chunk.length));
      req.on('end', () => res.end(String(total)));
    });
    const { edge } = await rig(activeDomain([origin({ port: server.port })]));
    const reply = await request(edge.port, { method: 'PUT', body: Buffer.alloc(300000, 1) });
    expect(reply).to.include({ status: 200, body: '300000' });
  });

  it('streams a 50 MB response: first bytes arrive before the origin finished, and a slow client holds the origin back', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 7);
    let writtenMb = 0;
    const server = await originServer((_req, res) => {
      const pump = (): void => {
        while (writtenMb < 50) {
          writtenMb++;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    const { edge } = await rig(activeDomain([origin({ port: server.port })]));
    let received = 0;
    let writtenWhileClientPaused = 0;
    await new Promise<void>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: edge.port, path: '/big', headers: { host: 'example.test' }, agent: false }, (res) => {
        res.once('data', () => {
          res.pause();
          setTimeout(() => {
            writtenWhileClientPaused = writtenMb;
            res.resume();
          }, 500);
        });
        res.on('data', (data: Buffer) => (received += data.length));
        res.on('end', resolve);
        res.on('error', reject);
      }).on('error', reject);
    });
    expect(received).to.equal(50 * 1024 * 1024);
    // Only socket and stream buffers sit between the two: the edge keeps none of the body.
    expect(writtenWhileClientPaused).to.be.below(35);
  });

  it('fails fast with 503 when more requests wait than max_pending_requests', async () => {
    const held: http.ServerResponse[] = [];
    const server = await originServer((_req, res) => held.push(res));
    const { edge } = await rig(activeDomain([origin({ port: server.port, limits: { max_connections: 1, max_pending_requests: 1 } })]));
    const first = request(edge.port, { path: '/1' });
    const second = request(edge.port, { path: '/2' });
    await sleep(100);
    const third = await request(edge.port, { path: '/3' });
    expect(third.status).to.equal(503);
    expect(third.body).to.contain('connection limit');
    held.splice(0).forEach((res) => res.end('ok'));
    await sleep(50);
    held.splice(0).forEach((res) => res.end('ok'));
    expect((await first).status).to.equal(200);
    expect((await second).status).to.equal(200);
  });

  it('answers 503 to a request still waiting for a connection after connect_ms, never sends it later, and keeps the busy connection', async () => {
    const paths: string[] = [];
    let connections = 0;
    const server = http.createServer((req, res) => {
      paths.push(req.url ?? '');
      if (req.url === '/slow') setTimeout(() => res.end('slow'), 600);
      else res.end('quick');
    });
    server.on('connection', () => connections++);
    const handle = await listen(server);
    cleanups.push(() => handle.close());
    const { edge } = await rig(activeDomain([origin({ port: handle.port, timeouts: { connect_ms: 200, read_ms: 30000 }, limits: { max_connections: 1, max_pending_requests: 5 } })]));
    const first = request(edge.port, { path: '/slow' });
    await sleep(50);
    const queued = await request(edge.port, { path: '/queued' });
    expect(queued.status).to.equal(503);
    expect(queued.body).to.contain('connection limit');
    expect(await first).to.include({ status: 200, body: 'slow' });
    expect(await request(edge.port, { path: '/after' })).to.include({ status: 200, body: 'quick' });
    expect(paths).to.deep.equal(['/slow', '/after']);
    expect(connections).to.equal(1);
  });

  it('drains the upload of a request refused while it waited for a connection, after the connection frees, and serves the next request on that client connection', async () => {
    const server = http.createServer((req, res) => {
      if (req.url === '/slow') return void setTimeout(() => res.end('slow'), 600);
      req.resume();
      req.on('end', () => res.end('next'));
    });
    const handle = await listen(server);
    cleanups.push(() => handle.close());
    const { edge } = await rig(activeDomain([origin({ port: handle.port, timeouts: { connect_ms: 200, read_ms: 30000 }, limits: { max_connections: 1, max_pending_requests: 5 } })]));
    const slow = request(edge.port, { path: '/slow' });
    await sleep(50);
    const upload = startUpload(edge.port);
    for (let waited = 0; waited < 100 && !upload.received().includes('\r\n\r\n'); waited++) await sleep(20);
    expect(upload.received()).to.match(/^HTTP\/1\.1 503 /);
    // The given-up request reaches the freed connection now: it must not take the client's upload back from the drain.
    expect((await slow).status).to.equal(200);
    await sleep(100);
    expect(await upload.finishThenAskNext()).to.deep.equal(['HTTP/1.1 503', 'HTTP/1.1 200']);
  });

  it('drains the rest of an upload the origin answered before reading it, so that the kept-alive client connection serves its next request', async () => {
    const server = await originServer((req, res) => {
      if (req.method === 'GET') return void res.end('next');
      res.writeHead(401, { 'content-type': 'text/plain' }).end('denied');
    });
    const { edge } = await rig(activeDomain([origin({ port: server.port })]));
    const upload = startUpload(edge.port);
    for (let waited = 0; waited < 100 && !upload.received().includes('denied'); waited++) await sleep(20);
    expect(upload.received()).to.match(/^HTTP\/1\.1 401 /);
    await sleep(100);
    expect(await upload.finishThenAskNext()).to.deep.equal(['HTTP/1.1 401', 'HTTP/1.1 200']);
  });

  it('proxies to an origin addressed by an IPv6 literal (stored without brackets)', async () => {
    const server = http.createServer((_req, res) => res.end('over v6'));
    await new Promise<void>((resolve) => server.listen(0, '::1', resolve));
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    const { edge } = await rig(activeDomain([origin({ host: '::1', port: (server.address() as net.AddressInfo).port })]));
    expect(await request(edge.port)).to.include({ status: 200, body: 'over v6' });
  });

  it('answers 500 to a request the HTTP client refuses to build (a shield secret it cannot send), without blaming the origin or blocking its connection', async () => {
    const server = await originServer((_req, res) => res.end('ok'));
    const observations: OriginObservation[] = [];
    const breakers = new OriginBreakers();
    const fetcher = createOriginFetcher({ config: TEST_CONFIG, health: new OriginHealthView({ onObservation: (observation) => observations.push(observation) }), breakers });
    cleanups.push(() => fetcher.close());
    const shared = origin({ port: server.port, limits: { max_connections: 1, max_pending_requests: 5 } });
    const good = await startEdge(activeDomain([shared]), fetcher);
    const refused = await startEdge(activeDomain([shared], { header_name: 'X-Shield', secret: 'pa\u20acword-123' }), fetcher);
    cleanups.push(() => good.close(), () => refused.close());
    expect((await request(good.port)).status).to.equal(200);
    expect((await request(refused.port)).status).to.equal(500);
    expect((await request(good.port)).status).to.equal(200);
    expect(server.requests).to.equal(2);
    expect(observations.filter((observation) => !observation.success)).to.deep.equal([]);
    expect(breakers.state(shared, Date.now())).to.equal('closed');
  });

  describe('https origins', () => {
    let dir: string;
    let key: Buffer;
    let cert: Buffer;
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'edge-origin-tls-'));
      execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=origin.example.test', '-addext', 'subjectAltName=DNS:origin.example.test'], { stdio: 'ignore' });
      key = readFileSync(join(dir, 'key.pem'));
      cert = readFileSync(join(dir, 'cert.pem'));
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    async function tlsServer(): Promise<TestServer> {
      const server = await listen(https.createServer({ key, cert }, (_req, res) => res.end('secure')) as unknown as http.Server);
      cleanups.push(() => server.close());
      return server;
    }

    it('verifies the origin certificate against the trusted CAs', async () => {
      const server = await tlsServer();
      const { edge } = await rig(activeDomain([origin({ port: server.port, scheme: 'https', host_header: 'origin.example.test' })]), { tls: { ca: cert } });
      expect(await request(edge.port)).to.include({ status: 200, body: 'secure' });
    });

    it('answers 502 and reports a TLS failure for an untrusted certificate', async () => {
      const server = await tlsServer();
      const { edge, observations } = await rig(activeDomain([origin({ port: server.port, scheme: 'https', host_header: 'origin.example.test', retries: { max: 0, non_idempotent: false, budget_percent: 20, budget_min_per_second: 5 } })]));
      const reply = await request(edge.port);
      expect(reply.status).to.equal(502);
      expect(reply.body).to.contain('secure connection');
      expect(observations[0]).to.include({ success: false, failure_kind: 'tls' });
      expect(server.requests).to.equal(0);
    });

    it('reports a TLS failure when an https origin speaks plain HTTP', async () => {
      const plain = await originServer((_req, res) => res.end('plain'));
      const { edge, observations } = await rig(activeDomain([origin({ port: plain.port, scheme: 'https', host_header: 'origin.example.test' })]), { tls: { ca: cert } });
      expect((await request(edge.port)).status).to.equal(502);
      expect(observations[0]).to.include({ success: false, failure_kind: 'tls' });
    });
  });
});

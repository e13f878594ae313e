import { expect } from 'chai';
import http from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { OriginBreakers } from '../../../src/edge/origin/breaker.js';
import { OriginHealthView } from '../../../src/edge/origin/health-view.js';
import { handleUpgrade } from '../../../src/edge/origin/websocket.js';
import { errorPageFor, type OriginErrorKind } from '../../../src/edge/origin/origin-error.js';
import type { ResponseHeaders } from '../../../src/edge/pipeline/response.js';
import type { ActiveDomain } from '../../../src/edge/config/active-config.js';
import { startRawOrigin } from '../../support/raw-origin.js';
import { activeDomain, closedPort, listen, origin, startOrigin, TEST_CONFIG, type TestServer } from './support.js';

// An origin that accepts any upgrade and echoes every byte back.
async function echoOrigin(): Promise<TestServer & { upgrades: http.IncomingHttpHeaders[] }> {
  const upgrades: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((_req, res) => res.end('no upgrade'));
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex) => {
    upgrades.push(req.headers);
    socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
    socket.pipe(socket);
  });
  return Object.assign(await listen(server), { upgrades });
}

async function upgradeEdge(domain: ActiveDomain): Promise<TestServer> {
  const server = http.createServer((_req, res) => res.end());
  const deps = { config: TEST_CONFIG, health: new OriginHealthView(), breakers: new OriginBreakers() };
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const target = {
      domain,
      host: 'example.test',
      target: req.url ?? '/',
      clientIp: '203.0.113.9',
      scheme: 'http' as const,
      headers: req.headers,
      finishHead: (_status: number, headers: ResponseHeaders) => ({ ...headers, 'x-request-id': 'req-test' }),
      refuse: (kind: OriginErrorKind) => {
        const { status } = errorPageFor(kind);
        socket.end(`HTTP/1.1 ${status} Refused\r\nx-request-id: req-test\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
        return status;
      },
    };
    void handleUpgrade(req, socket, head, target, deps);
  });
  return listen(server);
}

// Opens an upgrade through the edge; resolves with the upgraded socket or the refusal status.
function openUpgrade(port: number): Promise<{ socket?: Socket; status: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/chat', headers: { host: 'example.test', connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13' }, agent: false });
    req.on('upgrade', (res, socket: Socket) => resolve({ socket, status: res.statusCode ?? 0 }));
    req.on('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0 });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('edge WebSocket pass-through', () => {
  const servers: TestServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });

  it('joins the client and the origin after a 101 and echoes bytes both ways', async () => {
    const origin1 = await echoOrigin();
    servers.push(origin1);
    const edge = await upgradeEdge(activeDomain([origin({ port: origin1.port })]));
    servers.push(edge);
    const { socket, status } = await openUpgrade(edge.port);
    expect(status).to.equal(101);
    const echoed = await new Promise<string>((resolve) => {
      socket!.once('data', (data: Buffer) => resolve(data.toString()));
      socket!.write('ping over the edge');
    });
    socket!.destroy();
    expect(echoed).to.equal('ping over the edge');
    expect(origin1.upgrades[0]).to.include({ upgrade: 'websocket', 'x-forwarded-for': '203.0.113.9', 'sec-websocket-version': '13' });
  });

  it('passes back a non-101 answer from the origin', async () => {
    const plain = await startOrigin((_req, res) => {
      res.statusCode = 426;
      res.end('upgrade required');
    });
    servers.push(plain);
    const edge = await upgradeEdge(activeDomain([origin({ port: plain.port })]));
    servers.push(edge);
    expect((await openUpgrade(edge.port)).status).to.equal(426);
  });

  it('answers 502 when the origin cannot be reached', async () => {
    const edge = await upgradeEdge(activeDomain([origin({ port: await closedPort() })]));
    servers.push(edge);
    expect((await openUpgrade(edge.port)).status).to.equal(502);
  });

  it('answers 504 after one timeout of a single origin, without waiting for it a second time', async () => {
    const held: Duplex[] = [];
    const silent = http.createServer();
    silent.on('upgrade', (_req: http.IncomingMessage, socket: Duplex) => held.push(socket));
    const server = await listen(silent);
    servers.push(server);
    const edge = await upgradeEdge(activeDomain([origin({ port: server.port, timeouts: { connect_ms: 1000, read_ms: 500 } })]));
    servers.push(edge);
    const started = Date.now();
    const { status } = await openUpgrade(edge.port);
    const waited = Date.now() - started;
    const attempts = held.length;
    held.forEach((socket) => socket.destroy());
    expect(status).to.equal(504);
    expect(waited).to.be.within(450, 900);
    expect(attempts).to.equal(1);
  });

  it('answers 502 to an upgrade the origin answers with a status below 100', async () => {
    const low = await startRawOrigin((request) => request.respond('HTTP/1.1 099 Low'));
    const edge = await upgradeEdge(activeDomain([origin({ port: low.port })]));
    servers.push(edge, { port: low.port, requests: 0, close: () => low.close() });
    expect((await openUpgrade(edge.port)).status).to.equal(502);
    expect(low.requests).to.have.length(1);
  });
});

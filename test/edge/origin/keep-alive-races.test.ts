import { expect } from 'chai';
import net from 'node:net';
import { OriginBreakers } from '../../../src/edge/origin/breaker.js';
import { OriginHealthView } from '../../../src/edge/origin/health-view.js';
import type { OriginObservation } from '../../../src/edge/origin/observation.js';
import { createOriginFetcher } from '../../../src/edge/origin/proxy.js';
import type { SnapshotOrigin } from '../../../src/shared/snapshot.js';
import { startRawOrigin, type RawOrigin, type RawOriginRequest } from '../../support/raw-origin.js';
import { activeDomain, origin, request, sleep, startEdge, startOrigin, TEST_CONFIG, type TestEdge } from './support.js';

type Rig = { edge: TestEdge; observations: OriginObservation[]; breakers: OriginBreakers; target: SnapshotOrigin };

// A breaker that opens on the second failure, so that a race held against the origin shows at once.
const TOUCHY_BREAKER = { failure_threshold: 2, window_seconds: 60, cooldown_seconds: 60 };

/** A kept-alive connection to the edge whose requests are written synchronously, so a test can time one to the microsecond. */
class KeptConnection {
  private buffer = '';
  private waiting: ((status: number) => void) | undefined;
  private readonly socket: net.Socket;

  constructor(port: number) {
    this.socket = net.connect(port, '127.0.0.1');
    this.socket.setEncoding('latin1');
    this.socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      this.deliver();
    });
  }

  async ready(): Promise<void> {
    if (this.socket.connecting) await new Promise((resolve) => this.socket.once('connect', resolve));
  }

  /** Writes a GET now (same tick); `next()` reads its status. */
  get(path: string): void {
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: example.test\r\n\r\n`);
  }

  next(): Promise<number> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.deliver();
    });
  }

  close(): void {
    this.socket.destroy();
  }

  // Hands the next whole response (head and Content-Length body) to the waiting reader.
  private deliver(): void {
    const end = this.buffer.indexOf('\r\n\r\n');
    if (!this.waiting || end < 0) return;
    const head = this.buffer.slice(0, end);
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    if (this.buffer.length < end + 4 + length) return;
    this.buffer = this.buffer.slice(end + 4 + length);
    const resolve = this.waiting;
    this.waiting = undefined;
    resolve(Number(head.split(' ')[1]));
  }
}

/** A chunked PUT on a raw connection to the edge: the head is sent at once, each chunk when the test says. */
class ChunkedUpload {
  private buffer = Buffer.alloc(0);
  private readonly socket: net.Socket;
  private readonly ended: Promise<void>;

  constructor(port: number, path: string) {
    this.socket = net.connect(port, '127.0.0.1');
    this.socket.on('error', () => undefined);
    this.socket.on('data', (chunk: Buffer) => (this.buffer = Buffer.concat([this.buffer, chunk])));
    this.ended = new Promise((resolve) => this.socket.once('close', () => resolve()));
    this.socket.write(`PUT ${path} HTTP/1.1\r\nHost: example.test\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`);
  }

  send(text: string): void {
    this.socket.write(`${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`);
  }

  finish(): void {
    this.socket.write('0\r\n\r\n');
  }

  /** The status and body of the edge's answer (the edge closes the connection after it); status 0 when none came within 3 s. */
  async reply(): Promise<{ status: number; body: string }> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.ended, new Promise((resolve) => (timer = setTimeout(resolve, 3000)))]);
    clearTimeout(timer);
    if (!this.socket.destroyed) return { status: 0, body: '' };
    const text = this.buffer.toString('latin1');
    const end = text.indexOf('\r\n\r\n');
    return { status: Number(text.split(' ')[1]), body: end < 0 ? '' : text.slice(end + 4) };
  }

  close(): void {
    this.socket.destroy();
  }
}

describe('edge origin keep-alive races', function () {
  this.timeout(20000);
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function rawOrigin(onRequest: (request: RawOriginRequest) => void): Promise<RawOrigin> {
    const server = await startRawOrigin(onRequest);
    cleanups.push(() => server.close());
    return server;
  }

  async function rig(port: number): Promise<Rig> {
    const observations: OriginObservation[] = [];
    const breakers = new OriginBreakers();
    const health = new OriginHealthView({ onObservation: (observation) => observations.push(observation) });
    const fetcher = createOriginFetcher({ config: TEST_CONFIG, health, breakers });
    const target = origin({ port, circuit_breaker: TOUCHY_BREAKER });
    const edge = await startEdge(activeDomain([target]), fetcher);
    cleanups.push(() => fetcher.close(), () => edge.close());
    return { edge, observations, breakers, target };
  }

  // Answers the first request of each connection, without `Connection: close`, and closes the connection
  // 50 ms later; a request that arrives on it meanwhile is never answered.
  function oneResponsePerConnection(request: RawOriginRequest): void {
    if (request.sequence > 0) return;
    request.respond('HTTP/1.1 200 OK', `answer to ${request.method} ${request.target}`);
    setTimeout(() => request.socket.destroy(), 50);
  }

  it('sends a GET again on a fresh connection when the origin closed the reused one after one response, without opening the breaker', async () => {
    const server = await rawOrigin(oneResponsePerConnection);
    const { edge, observations, breakers, target } = await rig(server.port);
    const statuses: number[] = [];
    for (let index = 0; index < 12; index++) statuses.push((await request(edge.port, { path: `/page/${index}` })).status);
    expect(statuses).to.deep.equal(new Array(12).fill(200));
    expect(server.requests.filter((request) => request.sequence > 0).length, 'requests that met a closing connection').to.be.at.least(3);
    expect(breakers.state(target, Date.now())).to.equal('closed');
    expect(observations.filter((observation) => !observation.success)).to.deep.equal([]);
  });

  it('sends a PUT without a body again, since PUT is idempotent', async () => {
    const server = await rawOrigin(oneResponsePerConnection);
    const { edge, breakers, target } = await rig(server.port);
    const statuses: number[] = [];
    for (let index = 0; index < 6; index++) statuses.push((await request(edge.port, { method: 'PUT', path: `/put/${index}` })).status);
    expect(statuses).to.deep.equal(new Array(6).fill(200));
    expect(breakers.state(target, Date.now())).to.equal('closed');
  });

  it('answers 502 to a POST the closing connection took, without sending it twice or holding it against the origin', async () => {
    const server = await rawOrigin(oneResponsePerConnection);
    const { edge, observations, breakers, target } = await rig(server.port);
    expect((await request(edge.port, { path: '/warm' })).status).to.equal(200);
    const statuses: number[] = [];
    for (let index = 0; index < 4; index++) statuses.push((await request(edge.port, { method: 'POST', path: '/form' })).status);
    const posts = server.requests.filter((request) => request.method === 'POST');
    expect(statuses.filter((status) => status === 502).length, 'POSTs that met a closing connection').to.equal(posts.filter((request) => request.sequence > 0).length);
    expect(posts.length).to.equal(4);
    expect(breakers.state(target, Date.now())).to.equal('closed');
    expect(observations.filter((observation) => !observation.success)).to.deep.equal([]);
  });

  it('sends a GET again when the origin closes the idle connection at 1 s just as the request arrives, without opening the breaker', async () => {
    let onIdleClose = (): void => {};
    const server = await rawOrigin((request) => {
      request.respond('HTTP/1.1 200 OK', 'fine');
      const socket = request.socket;
      const idle = setTimeout(() => {
        onIdleClose();
        socket.destroy();
      }, 1000);
      socket.once('data', () => clearTimeout(idle));
      socket.once('close', () => clearTimeout(idle));
    });
    const { edge, observations, breakers, target } = await rig(server.port);
    const kept = new KeptConnection(edge.port);
    cleanups.push(() => kept.close());
    await kept.ready();
    const statuses: number[] = [];
    for (let round = 0; round < 3; round++) {
      kept.get(`/warm/${round}`);
      statuses.push(await kept.next());
      // The request reaches the edge just before the origin's FIN: the edge sends it on the closing connection.
      await new Promise<void>((resolve, reject) => {
        const missed = setTimeout(() => reject(new Error(`round ${round}: the origin closed no idle connection within 3 s`)), 3000);
        onIdleClose = () => {
          onIdleClose = () => {};
          clearTimeout(missed);
          kept.get(`/round/${round}`);
          resolve();
        };
      });
      statuses.push(await kept.next());
    }
    expect(statuses).to.deep.equal(new Array(6).fill(200));
    // Each was answered on a new connection: sent again there after meeting the closed one, or sent there in the first
    // place when the closing was seen before the request was written (undici reads an idle connection before reusing it).
    for (const target of ['/round/0', '/round/1', '/round/2']) {
      const sent = server.requests.filter((request) => request.target === target);
      expect(sent.at(-1)?.sequence, `${target} sent as the first request of a connection`).to.equal(0);
      expect(sent.length, `${target} sent at most twice`).to.be.at.most(2);
    }
    expect(breakers.state(target, Date.now())).to.equal('closed');
    expect(observations.filter((observation) => !observation.success)).to.deep.equal([]);
  });

  it('never sends a chunked PUT again without the body bytes read while the reused connection was failing: the origin gets the whole body, or the client a 502', async () => {
    let onIdleClose = (): void => {};
    const bodies: string[] = [];
    let resent = 0;
    const server = await startOrigin((req, res) => {
      if (req.method === 'GET') {
        res.end('warm');
        // The connection stays open after the answer, then closes as idle just as the next request is on its way.
        setTimeout(() => {
          req.socket.destroy();
          onIdleClose();
        }, 50);
        return;
      }
      // The edge sends a request again on a fresh connection with Connection: close.
      if (req.headers.connection === 'close') resent++;
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        bodies.push(Buffer.concat(chunks).toString());
        res.end(`got ${Buffer.concat(chunks).toString()}`);
      });
    });
    cleanups.push(() => server.close());
    const { edge, breakers, target } = await rig(server.port);
    const outcomes: string[] = [];
    // The first chunk leaves the client this long after the origin closed the reused connection, to meet each moment of the resend.
    const delays = [0, 0, 1, 2, 5];
    for (const [round, delay] of delays.entries()) {
      expect((await request(edge.port, { path: `/warm/${round}` })).status).to.equal(200);
      const client = new ChunkedUpload(edge.port, '/upload');
      cleanups.push(() => client.close());
      await new Promise<void>((resolve, reject) => {
        const missed = setTimeout(() => reject(new Error(`round ${round}: the origin closed no idle connection within 3 s`)), 3000);
        onIdleClose = () => {
          onIdleClose = () => {};
          clearTimeout(missed);
          resolve();
        };
      });
      if (delay > 0) await sleep(delay);
      client.send('hello');
      await sleep(100);
      client.send(' world');
      client.finish();
      const reply = await client.reply();
      outcomes.push(reply.status === 200 ? reply.body : String(reply.status));
    }
    for (const outcome of outcomes) expect(['got hello world', '502'], `outcomes ${JSON.stringify(outcomes)}`).to.include(outcome);
    for (const body of bodies) expect(body, `bodies the origin received: ${JSON.stringify(bodies)}`).to.equal('hello world');
    expect(resent, 'uploads sent again after the race').to.be.at.least(1);
    expect(breakers.state(target, Date.now())).to.equal('closed');
  });
});

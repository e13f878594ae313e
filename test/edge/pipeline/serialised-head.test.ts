import { expect } from 'chai';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net from 'node:net';
import { Readable } from 'node:stream';
import pino from 'pino';
import type { RequestContext } from '../../../src/edge/pipeline/context.js';
import { storeSerialisedHead } from '../../../src/edge/pipeline/serialised-head.js';
import type { EdgeResponse, ResponseHeaders } from '../../../src/edge/pipeline/response.js';
import { writeResponse } from '../../../src/edge/pipeline/writer.js';

const BODY = Buffer.from('hello, cached world');
const DATE = 'Thu, 26 Nov 2026 10:00:00 GMT';
const REQUEST_ID = '0123456789ab-1z';
const CACHED: ResponseHeaders = {
  'content-type': 'text/plain; charset=utf-8',
  'content-length': String(BODY.length),
  date: DATE,
  etag: '"v1"',
  'cache-control': 'public,\tmax-age=60',
  age: '3',
  'x-cache': 'HIT',
  'accept-ranges': 'bytes',
  'x-latin': 'caf\u00e9',
  'x-empty': '',
  'x-request-id': REQUEST_ID,
};

type Answer = { status: number; headers: ResponseHeaders };
type Mode = 'edge' | 'node';
type ServerSettings = Partial<Pick<http.Server, 'keepAliveTimeout' | 'maxRequestsPerSocket'>>;

// A server answering each request with `answer`, its head stored by the edge (mode 'edge', falling
// back to writeHead when that declines, as the writer does) or by Node's writeHead ('node'). The
// last request of an exchange asks to close and is answered by Node in both modes.
async function serverFor(settings: ServerSettings, answer: Answer, stored: boolean[], store: typeof storeSerialisedHead): Promise<{ exchange: (mode: Mode, requests: string) => Promise<string>; close: () => Promise<void> }> {
  let mode: Mode = 'node';
  const server = http.createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/close') return void res.writeHead(200, { date: DATE, 'content-length': '2' }).end('ok');
    if (mode === 'node' || !record(store(res, answer.status, answer.headers, req.headers.expect !== undefined, REQUEST_ID))) res.writeHead(answer.status, answer.headers);
    res.end(BODY);
  });
  Object.assign(server, settings);
  const record = (taken: boolean): boolean => (stored.push(taken), taken);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const exchange = (chosen: Mode, requests: string): Promise<string> => {
    mode = chosen;
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write(`${requests}GET /close HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`, 'latin1'));
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
      socket.on('error', reject);
    });
  };
  return { exchange, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

// The bytes of one exchange with the head stored by the edge and by writeHead, and whether the edge stored each.
async function bothWays(requests: string, answer: Answer, settings: ServerSettings = {}, store = storeSerialisedHead): Promise<{ edge: string; node: string; stored: boolean[] }> {
  const stored: boolean[] = [];
  const server = await serverFor(settings, answer, stored, store);
  try {
    return { edge: await server.exchange('edge', requests), node: await server.exchange('node', requests), stored };
  } finally {
    await server.close();
  }
}

const GET = 'GET /object HTTP/1.1\r\nHost: a\r\n\r\n';

// A response not yet written, for the cases the edge declines: a request of `raw` to a server that stores nothing.
async function freshResponse(raw: string, check: (res: ServerResponse) => void): Promise<void> {
  let failure: unknown;
  const server = http.createServer((_req, res) => {
    try {
      check(res);
    } catch (error) {
      failure = error;
    }
    if (!res.headersSent) res.writeHead(200, { date: DATE, 'content-length': '0' });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve, reject) => {
    const socket = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1', () => socket.write(raw, 'latin1'));
    socket.on('data', () => socket.end());
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
  await new Promise((resolve) => server.close(resolve));
  if (failure) throw failure;
}

describe('the response head of a whole body, serialised by the edge (pipeline/serialised-head.ts)', () => {
  it('puts the same bytes on the wire as writeHead for a cached answer on a keep-alive connection', async () => {
    const { edge, node, stored } = await bothWays(GET, { status: 200, headers: CACHED });
    expect(stored).to.deep.equal([true]);
    expect(edge).to.equal(node);
    expect(edge).to.match(/^HTTP\/1\.1 200 OK\r\ncontent-type: text\/plain; charset=utf-8\r\n/);
    expect(edge).to.include(`\r\nx-latin: caf\u00e9\r\nx-empty: \r\nx-request-id: ${REQUEST_ID}\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\nhello, cached world`);
  });

  it('does so for names that only begin like the ones Node handles on its own', async () => {
    const { edge, node, stored } = await bothWays(GET, { status: 200, headers: { ...CACHED, 'connection-id': '7', 'expected-by': 'x', 'trailers-x': 'y', dates: 'z' } });
    expect(stored).to.deep.equal([true]);
    expect(edge).to.equal(node);
  });

  it('does so for other statuses with a body, a reason Node does not know included', async () => {
    for (const status of [201, 206, 404, 299, 503]) {
      const { edge, node, stored } = await bothWays(GET, { status, headers: CACHED });
      expect(stored, String(status)).to.deep.equal([true]);
      expect(edge, String(status)).to.equal(node);
    }
    expect((await bothWays(GET, { status: 299, headers: CACHED })).edge).to.match(/^HTTP\/1\.1 299 unknown\r\n/);
  });

  it('does so for pipelined requests, answered in order', async () => {
    const { edge, node, stored } = await bothWays(GET + GET + GET, { status: 200, headers: CACHED });
    expect(stored).to.deep.equal([true, true, true]);
    expect(edge).to.equal(node);
    expect(edge.split('hello, cached world')).to.have.length(4);
  });

  it('does so for an HTTP/1.0 client that asked to keep the connection', async () => {
    const { edge, node, stored } = await bothWays('GET /object HTTP/1.0\r\nHost: a\r\nConnection: keep-alive\r\n\r\n', { status: 200, headers: CACHED });
    expect(stored).to.deep.equal([true]);
    expect(edge).to.equal(node);
  });

  it('follows the server\'s keep-alive timeout and request limit, and leaves the last request of the limit to Node', async () => {
    const limited = await bothWays(GET + GET, { status: 200, headers: CACHED }, { keepAliveTimeout: 65000, maxRequestsPerSocket: 3 });
    expect(limited.stored).to.deep.equal([true, true]);
    expect(limited.edge).to.equal(limited.node);
    expect(limited.edge).to.include('Keep-Alive: timeout=65, max=3\r\n');
    // The third request reaches the limit: Node closes the connection after it (the fourth is refused).
    const atLimit = await bothWays(GET + GET + GET, { status: 200, headers: CACHED }, { keepAliveTimeout: 65000, maxRequestsPerSocket: 3 });
    expect(atLimit.stored).to.deep.equal([true, true, false]);
    expect(atLimit.edge).to.equal(atLimit.node);
    const noTimeout = await bothWays(GET, { status: 200, headers: CACHED }, { keepAliveTimeout: 0 });
    expect(noTimeout.stored).to.deep.equal([true]);
    expect(noTimeout.edge).to.equal(noTimeout.node);
    expect(noTimeout.edge).to.include('Connection: keep-alive\r\n\r\n');
  });

  it('takes a head of 64 fields, the most it serialises', async () => {
    const many = Object.fromEntries(Array.from({ length: 64 - Object.keys(CACHED).length }, (_, index) => [`x-field-${index}`, 'v']));
    const { edge, node, stored } = await bothWays(GET, { status: 200, headers: { ...CACHED, ...many } });
    expect(stored).to.deep.equal([true]);
    expect(edge).to.equal(node);
  });

  it('leaves an object with a prototype of its own to writeHead, which takes the own fields only', async () => {
    const inheriting = Object.assign(Object.create({ 'x-inherited': 'p' }) as ResponseHeaders, CACHED);
    const { edge, node, stored } = await bothWays(GET, { status: 200, headers: inheriting });
    expect(stored).to.deep.equal([false]);
    expect(edge).to.equal(node);
    expect(edge).not.to.include('x-inherited');
  });

  it('takes an object without a prototype, and leaves a head to writeHead while Object.prototype has an enumerable field', async () => {
    const bare = Object.assign(Object.create(null) as ResponseHeaders, CACHED);
    const withoutPrototype = await bothWays(GET, { status: 200, headers: bare });
    expect(withoutPrototype.stored).to.deep.equal([true]);
    expect(withoutPrototype.edge).to.equal(withoutPrototype.node);
    // Synchronously, so nothing else in this process runs while Object.prototype is changed.
    await freshResponse(GET, (res) => {
      (Object.prototype as Record<string, unknown>)['x-polluted'] = 'p';
      try {
        expect(storeSerialisedHead(res, 200, { ...CACHED }, false, REQUEST_ID)).to.equal(false);
      } finally {
        delete (Object.prototype as Record<string, unknown>)['x-polluted'];
      }
      expect(storeSerialisedHead(res, 200, { ...CACHED }, false, REQUEST_ID)).to.equal(true);
    });
  });

  it('writes the keep-alive lines of the first server it serves, whatever they are', async () => {
    // A module of its own: the keep-alive lines are remembered from one call to the next.
    const fresh = (await import(`../../../src/edge/pipeline/serialised-head.js?first-call=${Date.now()}`)) as { storeSerialisedHead: typeof storeSerialisedHead };
    const { edge, node, stored } = await bothWays(GET, { status: 200, headers: CACHED }, { keepAliveTimeout: -1, maxRequestsPerSocket: undefined as unknown as number }, fresh.storeSerialisedHead);
    expect(stored).to.deep.equal([true]);
    expect(edge).to.equal(node);
    expect(edge).to.include('Connection: keep-alive\r\nKeep-Alive: timeout=-1\r\n');
  });

  it('is how the edge\'s writer sends a whole body, where a streamed body still goes through writeHead', async () => {
    const called: string[] = [];
    const server = http.createServer((req, res) => {
      const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
      res.writeHead = ((...args: unknown[]) => (called.push(req.url!), writeHead(...args))) as typeof res.writeHead;
      const body = req.url === '/streamed' ? Readable.from([BODY]) : BODY;
      const response: EdgeResponse = { status: 200, headers: { ...CACHED }, body };
      writeResponse({ req, res, response, method: 'GET', headers: req.headers, bytesSent: 0 } as unknown as RequestContext, pino({ level: 'silent' }), () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const text = await new Promise<string>((resolve, reject) => {
        const socket = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1', () => socket.write(`${GET}GET /streamed HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`));
        let received = '';
        socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
        socket.on('end', () => resolve(received));
        socket.on('error', reject);
      });
      expect(called).to.deep.equal(['/streamed']);
      expect(text.split('hello, cached world')).to.have.length(3);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('leaves to writeHead a connection that closes after the response, and a request with Expect', async () => {
    for (const raw of ['GET /object HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n', 'GET /object HTTP/1.0\r\nHost: a\r\n\r\n']) {
      await freshResponse(raw, (res) => {
        expect(storeSerialisedHead(res, 200, CACHED, false, REQUEST_ID), raw).to.equal(false);
        expect(res.headersSent).to.equal(false);
      });
    }
    await freshResponse(GET, (res) => {
      expect(storeSerialisedHead(res, 200, CACHED, true, REQUEST_ID)).to.equal(false);
      expect(res.headersSent).to.equal(false);
    });
  });

  it('leaves to writeHead a status without a body or not a whole number, a reason of the edge\'s own, and a head already stored', async () => {
    await freshResponse(GET, (res) => {
      for (const status of [101, 204, 304, NaN, 200.5, '204' as unknown as number, '200' as unknown as number]) expect(storeSerialisedHead(res, status, CACHED, false, REQUEST_ID), String(status)).to.equal(false);
      res.statusMessage = 'Fine';
      expect(storeSerialisedHead(res, 200, CACHED, false, REQUEST_ID)).to.equal(false);
      res.statusMessage = '';
      expect(res.headersSent).to.equal(false);
      expect(storeSerialisedHead(res, 299, CACHED, false, REQUEST_ID)).to.equal(true);
      expect([res.statusCode, res.statusMessage, res.headersSent]).to.deep.equal([299, 'unknown', true]);
      expect(storeSerialisedHead(res, 200, CACHED, false, REQUEST_ID)).to.equal(false);
    });
  });

  it('leaves to writeHead a response whose Node lacks the internals it stores and reads', async () => {
    for (const [field, value] of [['_header', undefined], ['_keepAliveTimeout', undefined], ['_defaultKeepAlive', undefined]] as const) {
      await freshResponse(GET, (res) => {
        const saved = (res as unknown as Record<string, unknown>)[field];
        (res as unknown as Record<string, unknown>)[field] = value;
        expect(storeSerialisedHead(res, 200, CACHED, false, REQUEST_ID), field).to.equal(false);
        (res as unknown as Record<string, unknown>)[field] = saved;
        expect(res.headersSent).to.equal(false);
      });
    }
  });

  it('leaves to writeHead any field Node would refuse, or handle on its own, and a head without Date or Content-Length', async () => {
    const refused: ResponseHeaders[] = [
      { 'x-split': 'a\r\nset-cookie: evil=1' },
      { 'x-lf': 'a\nb' },
      { 'x-cr': 'a\rb' },
      { 'x-nul': 'a\u0000b' },
      { 'x-del': 'a\u007fb' },
      { 'x-wide': '\u010a' },
      { 'bad name': 'x' },
      { 'x-colon:': 'x' },
      { 'x: set-cookie=1, content-length': '999' },
      { 'a: ': 'v' },
      { '': 'x' },
      { 'X-Upper': 'x' },
      { 'set-cookie': ['a=1', 'b=2'] },
      { connection: 'close' },
      { 'transfer-encoding': 'chunked' },
      { trailer: 'x-sum' },
      { expect: '100-continue' },
      { 'keep-alive': 'timeout=1' },
      { 'content-disposition': 'attachment; filename="caf\u00e9.txt"' },
    ];
    await freshResponse(GET, (res) => {
      for (const extra of refused) {
        expect(storeSerialisedHead(res, 200, { ...CACHED, ...extra }, false, REQUEST_ID), JSON.stringify(extra)).to.equal(false);
      }
      const { date: _date, ...withoutDate } = CACHED;
      const { 'content-length': _length, ...withoutLength } = CACHED;
      expect(storeSerialisedHead(res, 200, withoutDate, false, REQUEST_ID)).to.equal(false);
      expect(storeSerialisedHead(res, 200, withoutLength, false, REQUEST_ID)).to.equal(false);
      expect(storeSerialisedHead(res, 200, Object.assign(Object.create({ 'content-length': '19' }) as ResponseHeaders, withoutLength), false, REQUEST_ID), 'inherited Content-Length').to.equal(false);
      const hiddenLength = Object.defineProperty({ ...withoutLength }, 'content-length', { value: '19', enumerable: false });
      expect(storeSerialisedHead(res, 200, hiddenLength, false, REQUEST_ID), 'Content-Length not enumerable').to.equal(false);
      const many = Object.fromEntries(Array.from({ length: 64 - Object.keys(CACHED).length + 1 }, (_, index) => [`x-field-${index}`, 'v']));
      expect(storeSerialisedHead(res, 200, { ...CACHED, ...many }, false, REQUEST_ID), '65 fields').to.equal(false);
      const array = Object.assign(['x', 'y'], CACHED) as unknown as ResponseHeaders;
      expect(storeSerialisedHead(res, 200, array, false, REQUEST_ID), 'an array of fields').to.equal(false);
      expect(res.headersSent).to.equal(false);
    });
  });

  it('takes unchecked only the request id it is given, in any field; any other value is checked', async () => {
    await freshResponse(GET, (res) => {
      const split = 'x\r\nset-cookie: evil=1';
      expect(storeSerialisedHead(res, 200, { ...CACHED, 'x-request-id': split }, false, REQUEST_ID), 'another id').to.equal(false);
      expect(storeSerialisedHead(res, 200, { ...CACHED, 'x-trace': split }, false, REQUEST_ID), 'another field').to.equal(false);
      expect(storeSerialisedHead(res, 200, { ...CACHED, 'x-trace': REQUEST_ID }, false, REQUEST_ID), 'the id in another field').to.equal(true);
    });
  });
});

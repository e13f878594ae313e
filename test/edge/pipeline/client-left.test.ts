import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readlink, rm } from 'node:fs/promises';
import http, { type ServerResponse } from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import pino from 'pino';
import { createCachePhase } from '../../../src/edge/cache/cache-phase.js';
import { DiskTier } from '../../../src/edge/cache/disk-tier.js';
import { MemoryTier } from '../../../src/edge/cache/memory-tier.js';
import { domainForHost, type ActiveConfig } from '../../../src/edge/config/active-config.js';
import { RequestContext } from '../../../src/edge/pipeline/context.js';
import { hygienePhase } from '../../../src/edge/pipeline/hygiene-phase.js';
import { PipelineRunner } from '../../../src/edge/pipeline/runner.js';
import { prepareRequest } from '../../../src/shared/rules/rule-set.js';
import { configWith, eventually, Origin, proxyTo } from '../cache/helpers.js';
import { listen, request, sleep, type TestServer } from '../origin/support.js';

const HOST = 'www.example.com';
/** The memory tier takes objects up to 4 KiB (1/16 of it): the bodies below stay in their disk file. */
const MEMORY_BYTES = 64 * 1024;

type Edge = { server: TestServer; contexts: RequestContext[]; logged: RequestContext[] };

describe('edge pipeline response for a client that left', function () {
  this.timeout(10000);
  let origin: Origin;
  let dir: string;
  const servers: TestServer[] = [];
  const sockets: net.Socket[] = [];

  beforeEach(async () => {
    origin = await new Origin(() => undefined).start();
    dir = await mkdtemp(join(tmpdir(), 'edge-client-left-'));
  });
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    for (const server of servers.splice(0)) await server.close();
    await origin.stop();
    await rm(dir, { recursive: true, force: true, maxRetries: 5 });
  });

  // A node:http edge running the real cache phase (memory and disk tiers) in front of the test origin; the log phase records each context it ran for.
  async function startEdge(config: ActiveConfig): Promise<Edge> {
    const contexts: RequestContext[] = [];
    const logged: RequestContext[] = [];
    const cache = createCachePhase({ memory: new MemoryTier(MEMORY_BYTES), disk: new DiskTier(join(dir, 'cache'), 64 * 1024 * 1024), fetchOrigin: proxyTo(() => origin.port), onStored: () => undefined });
    const runner = new PipelineRunner([cache], [hygienePhase], (ctx) => logged.push(ctx), pino({ level: 'silent' }));
    const server = await listen(
      http.createServer((req, res) => {
        const ctx = new RequestContext(req, res, { config, requestId: randomUUID(), clientIp: '203.0.113.9', peer: '203.0.113.9', scheme: 'http' });
        ctx.host = HOST;
        ctx.path = req.url ?? '/';
        ctx.domain = domainForHost(config, HOST);
        ctx.facts = prepareRequest({ host: HOST, path: ctx.path, method: ctx.method, query: {}, headers: {}, cookies: {}, ip: ctx.clientIp });
        contexts.push(ctx);
        runner.run(ctx);
      }),
    );
    servers.push(server);
    return { server, contexts, logged };
  }

  // A GET written on a raw connection that the test drops before any answer.
  async function leavingClient(port: number, path: string): Promise<net.Socket> {
    const socket = net.connect(port, '127.0.0.1');
    sockets.push(socket);
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`);
    return socket;
  }

  // Descriptors this process holds open on files under the test's folder.
  async function openFiles(): Promise<number> {
    let count = 0;
    for (const fd of await readdir('/proc/self/fd')) if ((await readlink(`/proc/self/fd/${fd}`).catch(() => '')).startsWith(dir)) count++;
    return count;
  }

  // A second request of `path`, which finds the first one's fetch and waits for it; then its client leaves.
  async function followerLeaves(port: number, path: string, contexts: RequestContext[]): Promise<void> {
    const follower = await leavingClient(port, path);
    await eventually(() => contexts.length === 2);
    // Long enough for the second request to find the first one's fetch and wait for it.
    await sleep(50);
    follower.destroy();
    await eventually(() => contexts[1].res.destroyed);
  }

  it('closes the disk file of an object a coalesced request was waiting for when its client left meanwhile, and logs that request once', async () => {
    const body = randomBytes(300 * 1024);
    let answer: (() => void) | undefined;
    origin.handle((_req, res: ServerResponse) => {
      answer = () => res.writeHead(200, { 'cache-control': 'max-age=60', 'content-length': String(body.length) }).end(body);
    });
    const { server, contexts, logged } = await startEdge(configWith());
    const leader = request(server.port, { path: '/large', headers: { host: HOST } });
    await eventually(() => answer !== undefined);
    await followerLeaves(server.port, '/large', contexts);
    answer!();
    const reply = await leader;
    expect(reply.status).to.equal(200);
    expect(reply.body).to.equal(body.toString());

    await eventually(() => logged.includes(contexts[1]));
    const served = contexts[1].response?.body;
    expect(contexts[1].cacheStatus, 'the waiting request was served the stored object').to.equal('MISS');
    expect(served).to.be.instanceOf(Readable);
    expect((served as Readable).destroyed, 'the file stream was destroyed').to.equal(true);
    expect(contexts[1].res.headersSent, 'nothing was written to it (logged as 499)').to.equal(false);
    await eventually(async () => (await openFiles()) === 0);
    await sleep(50);
    expect(logged.filter((ctx) => ctx === contexts[1]).length).to.equal(1);
    expect(origin.requests).to.equal(1);
  });

  it('closes the origin response fetched for a request whose client left while it waited on another fetch, and logs that request once', async () => {
    let answerFirst: (() => void) | undefined;
    let secondClosedUnfinished = false;
    origin.handle((_req, res: ServerResponse) => {
      if (origin.requests === 1) {
        answerFirst = () => res.writeHead(200, { 'cache-control': 'no-store', 'content-length': '5' }).end('first');
        return;
      }
      // The body of the second answer is never finished: only the edge can end this response, by closing it.
      res.writeHead(200, { 'cache-control': 'no-store', 'content-length': String(1024 * 1024) });
      res.write(Buffer.alloc(64 * 1024));
      res.once('close', () => (secondClosedUnfinished = !res.writableFinished));
    });
    const { server, contexts, logged } = await startEdge(configWith());
    const leader = request(server.port, { path: '/private', headers: { host: HOST } });
    await eventually(() => answerFirst !== undefined);
    await followerLeaves(server.port, '/private', contexts);
    answerFirst!();
    expect(await leader).to.include({ status: 200, body: 'first' });

    await eventually(() => secondClosedUnfinished);
    expect(origin.requests, 'the waiting request fetched for itself').to.equal(2);
    await eventually(() => logged.includes(contexts[1]));
    await sleep(50);
    expect(logged.filter((ctx) => ctx === contexts[1]).length).to.equal(1);
  });
});

// Invalidation by unsafe methods (RFC 9111 §4.4) in a worker (memory tier, fills under way, reads of
// the disk tier) and in the primary (the disk sweep).
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCachePhase } from '../../../src/edge/cache/cache-phase.js';
import { DiskCacheIndex } from '../../../src/edge/cache/disk-index.js';
import { DiskTier } from '../../../src/edge/cache/disk-tier.js';
import { createInvalidationPhase, invalidatedTargets, invalidateLocally, type InvalidationTarget } from '../../../src/edge/cache/invalidation.js';
import { InvalidationLog, type Invalidation } from '../../../src/edge/cache/invalidation-log.js';
import { MemoryTier } from '../../../src/edge/cache/memory-tier.js';
import { PurgeLog } from '../../../src/edge/cache/purge-log.js';
import type { ActiveConfig } from '../../../src/edge/config/active-config.js';
import type { Phase } from '../../../src/edge/pipeline/phase.js';
import type { ResponseHeaders } from '../../../src/edge/pipeline/response.js';
import { InvalidationSweeper } from '../../../src/edge/primary/invalidation-sweeper.js';
import { InvalidationBatch } from '../../../src/edge/cache/invalidation-batch.js';
import { bodyOf, configWith, contextFor, DOMAIN_ID, eventually, Origin, proxyTo, type RequestOptions } from './helpers.js';

function counter() {
  let count = 0;
  return (req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'max-age=3600', vary: 'Accept-Language' });
    res.end(`${req.url} #${++count}`);
  };
}

const target = (path: string, query = ''): InvalidationTarget => ({ domainId: DOMAIN_ID, host: 'www.example.com', path, query });
const config = () => configWith();

describe('edge cache invalidation by unsafe methods', () => {
  let origin: Origin;
  let dir: string;
  let stored: { file: string; size: number }[];
  let notified: Invalidation[][];

  beforeEach(async () => {
    origin = await new Origin(counter()).start();
    dir = await mkdtemp(join(tmpdir(), 'edge-cache-invalidation-'));
    stored = [];
    notified = [];
  });
  afterEach(async () => {
    await origin.stop();
    await rm(dir, { recursive: true, force: true, maxRetries: 5 });
  });

  // One worker: its tiers and logs, its cache phase and its invalidation response phase.
  function worker() {
    const local = { memory: new MemoryTier(16 * 1024 * 1024), purges: new PurgeLog(), invalidations: new InvalidationLog() };
    const disk = new DiskTier(join(dir, 'cache'), 64 * 1024 * 1024);
    const cache = createCachePhase({ ...local, disk, fetchOrigin: proxyTo(() => origin.port), onStored: (file, size) => stored.push({ file, size }) });
    const invalidate = createInvalidationPhase({ ...local, notify: (targets) => notified.push(targets) });
    return { ...local, cache, invalidate };
  }

  async function get(phase: Phase, config: ActiveConfig, url: string, options: RequestOptions = {}) {
    const ctx = contextFor(config, url, options);
    await phase.run(ctx);
    return { status: ctx.cacheStatus, body: (await bodyOf(ctx.response)).toString() };
  }

  // An origin response to `method` on `url` passing the invalidation phase.
  function respond(invalidate: Phase, config: ActiveConfig, method: string, url: string, status: number, headers: ResponseHeaders = {}) {
    const ctx = contextFor(config, url, { method });
    ctx.originId = 'origin-1';
    ctx.response = { status, headers, body: null };
    expect(invalidate.run(ctx)).to.equal(false);
  }

  it('names the target URI and same-host Location and Content-Location of a non-error answer to an unsafe method', () => {
    const config = configWith();
    const ctx = contextFor(config, 'http://www.example.com/items/7?x=1', { method: 'PUT' });
    ctx.originId = 'origin-1';
    const headers = { location: '/items/7/../8?y=2', 'content-location': 'https://www.example.com/items/9' };
    expect(invalidatedTargets(ctx, 201, headers)).to.deep.equal([target('/items/7', 'x=1'), target('/items/8', 'y=2'), target('/items/9')]);
    expect(invalidatedTargets(ctx, 303, { location: 'https://evil.example.net/items/1' })).to.deep.equal([target('/items/7', 'x=1')]);
    expect(invalidatedTargets(ctx, 200, { location: '//other.example.com/x' })).to.deep.equal([target('/items/7', 'x=1')]);
    // A Location names the stored object in any spelling of its host and path.
    expect(invalidatedTargets(ctx, 201, { location: 'http://WWW.example.com.//items//%7e10' })).to.deep.equal([target('/items/7', 'x=1'), target('/items/~10')]);
    for (const status of [100, 404, 500, 503]) expect(invalidatedTargets(ctx, status, {}), `status ${status}`).to.deep.equal([]);
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'TRACE']) {
      const safe = contextFor(config, 'http://www.example.com/items/7', { method });
      safe.originId = 'origin-1';
      expect(invalidatedTargets(safe, 200, {}), method).to.deep.equal([]);
    }
    for (const method of ['POST', 'DELETE', 'PATCH', 'PURGE', 'LINK']) {
      const unsafe = contextFor(config, 'http://www.example.com/items/7', { method });
      unsafe.originId = 'origin-1';
      expect(invalidatedTargets(unsafe, 204, {}), method).to.have.length(1);
    }
    const edgeAnswer = contextFor(config, 'http://www.example.com/items/7', { method: 'POST' });
    expect(invalidatedTargets(edgeAnswer, 301, {}), 'a redirect the edge made itself').to.deep.equal([]);
  });

  it('makes the next GET of the target a MISS, every variant and query of it, and not other paths', async () => {
    const { cache, invalidate } = worker();
    const config = configWith();
    for (const language of ['en', 'nl']) await get(cache, config, 'http://www.example.com/cart', { headers: { 'accept-language': language } });
    await get(cache, config, 'http://www.example.com/cart?step=2');
    await get(cache, config, 'http://www.example.com/other');
    expect((await get(cache, config, 'http://www.example.com/cart', { headers: { 'accept-language': 'nl' } })).status).to.equal('HIT');
    respond(invalidate, config, 'POST', 'http://www.example.com/cart', 200);
    expect(notified.map((batch) => batch.map(({ at, ...rest }) => (expect(at).to.be.a('number'), rest)))).to.deep.equal([[target('/cart')]]);
    for (const language of ['en', 'nl']) expect((await get(cache, config, 'http://www.example.com/cart', { headers: { 'accept-language': language } })).status, language).to.equal('MISS');
    expect((await get(cache, config, 'http://www.example.com/cart?step=2')).status).to.equal('MISS');
    expect((await get(cache, config, 'http://www.example.com/other')).status).to.equal('HIT');
  });

  it('invalidates the Location of a 303 and leaves the cache alone after an error', async () => {
    const { cache, invalidate } = worker();
    const config = configWith();
    await get(cache, config, 'http://www.example.com/orders');
    await get(cache, config, 'http://www.example.com/form');
    respond(invalidate, config, 'POST', 'http://www.example.com/form', 500);
    expect((await get(cache, config, 'http://www.example.com/form')).status).to.equal('HIT');
    respond(invalidate, config, 'POST', 'http://www.example.com/form', 303, { location: '/orders' });
    expect((await get(cache, config, 'http://www.example.com/orders')).status).to.equal('MISS');
    expect((await get(cache, config, 'http://www.example.com/form')).status).to.equal('MISS');
  });

  it('refuses an older disk object of the resource and does not store a fill the invalidation overtook', async () => {
    const first = worker();
    const config = configWith();
    await get(first.cache, config, 'http://www.example.com/cart');
    await eventually(() => stored.length === 2);
    const second = worker();
    invalidateLocally([{ ...target('/cart'), at: Date.now() }], second, Date.now());
    const after = await get(second.cache, config, 'http://www.example.com/cart');
    expect(after.status).to.equal('MISS');
    expect(after.body).to.equal('/cart #2');
    origin.handle((req, res) => setTimeout(() => counter()(req, res), 100));
    const slow = get(second.cache, config, 'http://www.example.com/slow');
    await new Promise((resolve) => setTimeout(resolve, 30));
    invalidateLocally([{ ...target('/slow'), at: Date.now() }], second, Date.now());
    await slow;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await get(second.cache, config, 'http://www.example.com/slow')).status).to.equal('MISS');
  });

  it('sweeps the invalidated resources from the disk tier in one batch, after the delay', async () => {
    const { cache } = worker();
    const config = configWith();
    for (const path of ['/a', '/a?x=1', '/b']) await get(cache, config, `http://www.example.com${path}`);
    await eventually(() => stored.length === 6);
    const index = new DiskCacheIndex(join(dir, 'cache'), 64 * 1024 * 1024);
    await index.load();
    expect(index.count).to.equal(6);
    const sweeper = new InvalidationSweeper(index, { onError: (error) => { throw error; }, delayMs: 20 });
    sweeper.add([target('/a', 'x=1')]);
    expect(index.count).to.equal(6);
    await sweeper.idle();
    expect(index.count).to.equal(2);
    const restarted = worker();
    expect((await get(restarted.cache, config, 'http://www.example.com/a')).status).to.equal('MISS');
    expect((await get(restarted.cache, config, 'http://www.example.com/b')).status).to.equal('HIT');
  });
  it('keeps a refill fetched after the invalidation although the origin reports an Age', async () => {
    origin.handle((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'max-age=3600', age: '30' });
      res.end(`${req.url} refilled`);
    });
    const first = worker();
    const second = worker();
    const at = Date.now();
    for (const local of [first, second]) invalidateLocally([{ ...target('/aged'), at }], local, at);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await get(first.cache, config(), 'http://www.example.com/aged')).status).to.equal('MISS');
    await eventually(() => stored.length === 1);
    const other = await get(second.cache, config(), 'http://www.example.com/aged');
    expect([other.status, other.body]).to.deep.equal(['HIT', '/aged refilled']);
    expect(origin.requests).to.equal(1);
  });

  it('sends a worker\'s invalidations to the primary in one batch per 50 ms, one entry per resource', async () => {
    const sent: Invalidation[][] = [];
    const batch = new InvalidationBatch((invalidations) => sent.push(invalidations), 30);
    const now = Date.now();
    for (let index = 0; index < 3000; index++) batch.add([{ ...target(`/item/${index % 20}`), at: now + index }]);
    expect(sent).to.deep.equal([]);
    await eventually(() => sent.length === 1);
    expect(sent[0]).to.have.length(20);
    expect(sent[0].find((invalidation) => invalidation.path === '/item/0')?.at).to.equal(now + 2980);
    // A flood of distinct resources goes in messages of at most 1,000 resources.
    for (let index = 0; index < 2500; index++) batch.add([{ ...target(`/flood/${index}`), at: now }]);
    await eventually(() => sent.length === 4);
    expect(sent.slice(1).map((invalidations) => invalidations.length)).to.deep.equal([1000, 1000, 500]);
  });

  it('bounds the primary\'s sweep queue, dropping the oldest resources and counting them', async () => {
    const index = new DiskCacheIndex(join(dir, 'cache'), 64 * 1024 * 1024);
    await index.load();
    const drops: number[] = [];
    const sweeper = new InvalidationSweeper(index, { onError: (error) => { throw error; }, onDropped: (count) => drops.push(count), delayMs: 20, maxQueued: 1000 });
    for (let round = 0; round < 5; round++) sweeper.add(Array.from({ length: 1000 }, (_, item) => target(`/flood/${round}/${item}`)));
    sweeper.add([target('/flood/4/0')]);
    expect([sweeper.queuedCount, sweeper.dropped]).to.deep.equal([1000, 4000]);
    await sweeper.idle();
    expect([sweeper.queuedCount, drops]).to.deep.equal([0, [4000]]);
  });

  it('stores an unrelated large fill while thousands of invalidations arrive, with bounded logs', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'z');
    origin.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'cache-control': 'max-age=3600' });
      let sent = 0;
      const timer = setInterval(() => {
        res.write(chunk);
        if (++sent === 32) {
          clearInterval(timer);
          res.end();
        }
      }, 20);
    });
    const local = worker();
    const fill = get(local.cache, config(), 'http://www.example.com/large.bin');
    // ~0.7 s of fill; meanwhile 5,000 unsafe requests invalidate distinct resources of the domain.
    for (let round = 0; round < 10; round++) {
      for (let item = 0; item < 500; item++) {
        const at = Date.now();
        invalidateLocally([{ ...target(`/cart/${round}/${item}`), at }], local, at);
      }
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    const filled = await fill;
    expect(filled.body.length).to.equal(32 * chunk.length);
    await eventually(() => stored.length === 1);
    expect((await get(local.cache, config(), 'http://www.example.com/large.bin')).status).to.equal('HIT');
    // Past its bound the log forgets the oldest records, yet never misses an invalidation of a fill under way.
    const log = new InvalidationLog();
    const fetchedAt = Date.now();
    for (let round = 0; round < 30; round++) log.record(Array.from({ length: 1000 }, (_, item) => ({ ...target(`/x/${round}/${item}`), at: fetchedAt + 1 })), fetchedAt + 1);
    expect(log.size).to.equal(10_000);
    expect(log.overtook(target('/x/0/0'), fetchedAt)).to.equal(true);
  });
});

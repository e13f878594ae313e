import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheHeaderPhase } from '../../../src/edge/cache/cache-header-phase.js';
import type { CachePhaseOptions } from '../../../src/edge/cache/cache-phase.js';
import { DiskCacheIndex } from '../../../src/edge/cache/disk-index.js';
import { MemoryTier } from '../../../src/edge/cache/memory-tier.js';
import { applyPurges } from '../../../src/edge/cache/purge.js';
import { PurgeLog } from '../../../src/edge/cache/purge-log.js';
import type { ActiveConfig } from '../../../src/edge/config/active-config.js';
import type { RequestContext } from '../../../src/edge/pipeline/context.js';
import type { Phase } from '../../../src/edge/pipeline/phase.js';
import type { EdgeResponse } from '../../../src/edge/pipeline/response.js';
import { answer, bodyOf, cachePhaseIn, configWith, contextFor, DOMAIN_ID, eventually, forwardedHeaders, Origin, proxyTo, type RequestOptions } from './helpers.js';

const URL = 'http://www.example.com/page';

describe('edge cache phase', () => {
  let origin: Origin;
  let clock: number;
  let dir: string;
  let stored: { file: string; size: number }[];

  beforeEach(async () => {
    origin = await new Origin(answer('v1')).start();
    clock = Date.now();
    stored = [];
    dir = await mkdtemp(join(tmpdir(), 'edge-cache-phase-'));
  });
  afterEach(async () => {
    await origin.stop();
    await rm(dir, { recursive: true, force: true, maxRetries: 5 });
  });

  const phaseWith = (options: Partial<CachePhaseOptions> = {}): Phase => cachePhaseIn(dir, () => origin.port, { onStored: (file: string, size: number) => stored.push({ file, size }), now: () => clock, ...options });

  async function get(phase: Phase, config: ActiveConfig, url = URL, options: RequestOptions = {}): Promise<{ ctx: RequestContext; handled: boolean; body: string }> {
    const ctx = contextFor(config, url, options);
    const handled = await phase.run(ctx);
    if (handled) cacheHeaderPhase.run(ctx);
    return { ctx, handled, body: (await bodyOf(ctx.response)).toString() };
  }

  it('answers a second GET from the memory tier synchronously, with Age and X-Cache: HIT', async () => {
    const phase = phaseWith();
    const config = configWith();
    const miss = await get(phase, config);
    expect(miss.ctx.response?.headers['x-cache']).to.equal('MISS');
    expect(miss.body).to.equal('v1');
    await eventually(() => stored.length === 1);
    clock += 5000;
    const ctx = contextFor(config, URL);
    const handled = phase.run(ctx);
    expect(handled).to.equal(true);
    expect(ctx.cacheStatus).to.equal('HIT');
    expect(ctx.response?.headers).to.include({ 'x-cache': 'HIT', age: '5', 'content-length': '2', 'cache-control': 'max-age=14400' });
    expect(String(ctx.response?.body)).to.equal('v1');
    expect(origin.requests).to.equal(1);
  });

  it('gives each delivery its own header object', async () => {
    const phase = phaseWith();
    const config = configWith();
    await get(phase, config);
    const first = await get(phase, config);
    first.ctx.response!.headers['x-added'] = 'yes';
    const second = await get(phase, config);
    expect(second.ctx.response?.headers['x-added']).to.equal(undefined);
  });

  it('keeps one variant per value of the headers the origin varies on', async () => {
    origin.handle((req, res) => {
      res.writeHead(200, { vary: 'Accept-Language', 'content-type': 'text/plain' });
      res.end(`lang ${req.headers['accept-language']}`);
    });
    const phase = phaseWith();
    const config = configWith();
    const de = { headers: { 'accept-language': 'de' } };
    const fr = { headers: { 'accept-language': 'fr' } };
    expect((await get(phase, config, URL, de)).body).to.equal('lang de');
    expect((await get(phase, config, URL, fr)).body).to.equal('lang fr');
    const hitDe = await get(phase, config, URL, de);
    const hitFr = await get(phase, config, URL, fr);
    expect([hitDe.body, hitDe.ctx.cacheStatus, hitFr.body, hitFr.ctx.cacheStatus]).to.deep.equal(['lang de', 'HIT', 'lang fr', 'HIT']);
    expect(origin.requests).to.equal(2);
    await eventually(() => stored.length === 4);
    const otherWorker = await get(phaseWith(), config, URL, fr);
    expect([otherWorker.body, otherWorker.ctx.cacheStatus]).to.deep.equal(['lang fr', 'HIT']);
  });

  it('keys a Vary: X-Forwarded-Proto object on the scheme the origin was told, not on the client\'s header', async () => {
    // The origin redirects http to https and says so with Vary; the edge forwards as it does in production.
    origin.handle((req, res) => {
      const secure = req.headers['x-forwarded-proto'] === 'https';
      res.writeHead(secure ? 200 : 301, { vary: 'X-Forwarded-Proto', 'cache-control': 'max-age=3600', ...(secure ? {} : { location: 'https://www.example.com/page' }) });
      res.end(secure ? 'secure' : 'moved');
    });
    const fetchOrigin = proxyTo(() => origin.port, forwardedHeaders);
    const phase = phaseWith({ fetchOrigin });
    const config = configWith();
    const plain = await get(phase, config);
    expect([plain.ctx.response?.status, plain.body]).to.deep.equal([301, 'moved']);
    // A client claiming https over http gets the http answer, and stores nothing under https.
    const claimed = await get(phase, config, URL, { headers: { 'x-forwarded-proto': 'https' } });
    expect([claimed.ctx.response?.status, claimed.ctx.cacheStatus]).to.deep.equal([301, 'HIT']);
    const secure = await get(phase, config, 'https://www.example.com/page', { scheme: 'https' });
    expect([secure.ctx.response?.status, secure.body, secure.ctx.cacheStatus]).to.deep.equal([200, 'secure', 'MISS']);
    expect((await get(phase, config, 'https://www.example.com/page', { scheme: 'https' })).ctx.cacheStatus).to.equal('HIT');
    expect(origin.requests).to.equal(2);
  });

  it('never serves over https the redirect an origin answered for http without Vary', async () => {
    origin.handle((req, res) => {
      const secure = req.headers['x-forwarded-proto'] === 'https';
      res.writeHead(secure ? 200 : 301, { 'cache-control': 'max-age=3600', ...(secure ? {} : { location: 'https://www.example.com/page' }) });
      res.end(secure ? 'secure' : 'moved');
    });
    const phase = phaseWith({ fetchOrigin: proxyTo(() => origin.port, forwardedHeaders) });
    const config = configWith();
    expect((await get(phase, config)).ctx.response?.status).to.equal(301);
    const secure = await get(phase, config, 'https://www.example.com/page', { scheme: 'https' });
    expect([secure.ctx.response?.status, secure.body, secure.ctx.cacheStatus]).to.deep.equal([200, 'secure', 'MISS']);
    expect((await get(phase, config)).ctx.cacheStatus).to.equal('HIT');
    expect((await get(phase, config, 'https://www.example.com/page', { scheme: 'https' })).ctx.cacheStatus).to.equal('HIT');
  });

  it('makes one origin request for 100 concurrent misses of one key', async () => {
    origin.handle((_req, res) => setTimeout(() => answer('shared')(_req, res), 50));
    const phase = phaseWith();
    const config = configWith();
    const results = await Promise.all(Array.from({ length: 100 }, () => get(phase, config)));
    expect(origin.requests).to.equal(1);
    expect(new Set(results.map((result) => result.body))).to.deep.equal(new Set(['shared']));
    expect(results.every((result) => result.ctx.cacheStatus === 'MISS')).to.equal(true);
  });

  it('lets waiting requests fetch for themselves when the response turned out uncacheable', async () => {
    origin.handle((_req, res) => setTimeout(() => answer('private', { 'cache-control': 'private' })(_req, res), 30));
    const phase = phaseWith();
    const config = configWith();
    const results = await Promise.all(Array.from({ length: 5 }, () => get(phase, config)));
    expect(results.map((result) => result.body)).to.deep.equal(Array(5).fill('private'));
    expect(origin.requests).to.equal(5);
  });

  it('serves a stale object at once within stale-while-revalidate and refreshes it once in the background', async () => {
    origin.handle(answer('old', { 'cache-control': 'max-age=10, stale-while-revalidate=60' }));
    const phase = phaseWith();
    const config = configWith();
    await get(phase, config);
    origin.handle((_req, res) => setTimeout(() => answer('new', { 'cache-control': 'max-age=10' })(_req, res), 30));
    clock += 20_000;
    const stale = await Promise.all([get(phase, config), get(phase, config)]);
    expect(stale.map((result) => [result.body, result.ctx.cacheStatus])).to.deep.equal([
      ['old', 'STALE'],
      ['old', 'STALE'],
    ]);
    await eventually(() => origin.requests === 2 && stored.length === 2);
    const fresh = await get(phase, config);
    expect([fresh.body, fresh.ctx.cacheStatus]).to.deep.equal(['new', 'HIT']);
    expect(origin.requests).to.equal(2);
  });

  it('serves a stale object within stale-if-error when the origin is down, and fails past it', async () => {
    origin.handle(answer('kept', { 'cache-control': 'max-age=10, stale-if-error=60' }));
    const port = origin.port;
    const phase = phaseWith({ fetchOrigin: proxyTo(() => port) });
    const config = configWith();
    await get(phase, config);
    await origin.stop();
    clock += 30_000;
    const stale = await get(phase, config);
    expect([stale.body, stale.ctx.cacheStatus]).to.deep.equal(['kept', 'STALE']);
    clock += 60_000;
    const error = await get(phase, config).catch((failure: Error & { kind?: string }) => failure);
    expect(error).to.be.instanceOf(Error).with.property('kind', 'connect');
  });

  it('serves a stale object within stale-if-error when the origin answers 5xx', async () => {
    const phase = phaseWith();
    const config = configWith({ cache: { stale_if_error_seconds: 60 } });
    origin.handle(answer('good', { 'cache-control': 'max-age=10' }));
    await get(phase, config);
    origin.handle((_req, res) => {
      res.writeHead(503);
      res.end('down');
    });
    clock += 20_000;
    const stale = await get(phase, config);
    expect([stale.body, stale.ctx.cacheStatus, stale.ctx.response?.status]).to.deep.equal(['good', 'STALE', 200]);
  });

  it('fetches an expired object again (EXPIRED) and stores the new one', async () => {
    origin.handle(answer('one', { 'cache-control': 'max-age=10' }));
    const phase = phaseWith();
    const config = configWith();
    await get(phase, config);
    origin.handle(answer('two', { 'cache-control': 'max-age=10' }));
    clock += 11_000;
    const expired = await get(phase, config);
    expect([expired.body, expired.ctx.cacheStatus]).to.deep.equal(['two', 'EXPIRED']);
    await eventually(() => stored.length === 2);
    expect((await get(phase, config)).ctx.cacheStatus).to.equal('HIT');
  });

  it('revalidates an expired object with its ETag and serves it again on a 304, fresh for a new max-age', async () => {
    origin.handle(answer('tagged', { 'cache-control': 'max-age=10', etag: '"v1"', 'x-origin': 'first' }));
    const phase = phaseWith();
    const config = configWith();
    await get(phase, config);
    await eventually(() => stored.length === 1);
    const asked: (string | undefined)[] = [];
    origin.handle((req, res) => {
      asked.push(req.headers['if-none-match']);
      res.writeHead(304, { 'cache-control': 'max-age=60', etag: '"v1"', 'x-origin': 'second' });
      res.end();
    });
    clock += 11_000;
    const revalidated = await get(phase, config);
    expect([revalidated.body, revalidated.ctx.cacheStatus, revalidated.ctx.response?.status]).to.deep.equal(['tagged', 'EXPIRED', 200]);
    expect(revalidated.ctx.response?.headers).to.include({ 'x-origin': 'second', 'content-length': '6' });
    expect(asked).to.deep.equal(['"v1"']);
    clock += 30_000;
    const hit = await get(phase, config);
    expect([hit.body, hit.ctx.cacheStatus]).to.deep.equal(['tagged', 'HIT']);
    expect(origin.requests).to.equal(2);
  });

  it('asks with If-Modified-Since and takes a changed object when the origin sends one', async () => {
    origin.handle(answer('old', { 'cache-control': 'max-age=10', 'last-modified': 'Mon, 23 Nov 2026 10:00:00 GMT' }));
    const phase = phaseWith();
    const config = configWith();
    await get(phase, config);
    const asked: (string | undefined)[] = [];
    origin.handle((req, res) => {
      asked.push(req.headers['if-modified-since']);
      answer('changed', { 'cache-control': 'max-age=10', 'last-modified': 'Tue, 24 Nov 2026 10:00:00 GMT' })(req, res);
    });
    clock += 11_000;
    const expired = await get(phase, config);
    expect([expired.body, expired.ctx.cacheStatus]).to.deep.equal(['changed', 'EXPIRED']);
    expect(asked).to.deep.equal(['Mon, 23 Nov 2026 10:00:00 GMT']);
  });

  it('revalidates in the background within stale-while-revalidate', async () => {
    origin.handle(answer('kept', { 'cache-control': 'max-age=10, stale-while-revalidate=60', etag: '"k"' }));
    const phase = phaseWith();
    const config = configWith();
    await get(phase, config);
    let conditional = 0;
    origin.handle((req, res) => {
      if (req.headers['if-none-match'] === '"k"') conditional++;
      res.writeHead(304, { 'cache-control': 'max-age=10', etag: '"k"' });
      res.end();
    });
    clock += 15_000;
    expect((await get(phase, config)).ctx.cacheStatus).to.equal('STALE');
    await eventually(() => conditional === 1 && stored.length === 2);
    const fresh = await get(phase, config);
    expect([fresh.body, fresh.ctx.cacheStatus]).to.deep.equal(['kept', 'HIT']);
  });

  it('revalidates in the background the Vary variant it serves stale', async () => {
    origin.handle((req, res) => {
      res.writeHead(200, { vary: 'Accept-Language', 'cache-control': 'max-age=10, stale-while-revalidate=60', etag: `"${req.headers['accept-language']}"` });
      res.end(`lang ${req.headers['accept-language']}`);
    });
    const phase = phaseWith();
    const config = configWith();
    const de = { headers: { 'accept-language': 'de' } };
    await get(phase, config, URL, de);
    const asked: (string | undefined)[] = [];
    origin.handle((req, res) => {
      asked.push(req.headers['if-none-match']);
      res.writeHead(304, { 'cache-control': 'max-age=10', etag: '"de"' }).end();
    });
    clock += 15_000;
    expect((await get(phase, config, URL, de)).ctx.cacheStatus).to.equal('STALE');
    await eventually(() => asked.length === 1 && stored.length === 4);
    expect(asked).to.deep.equal(['"de"']);
    const fresh = await get(phase, config, URL, de);
    expect([fresh.body, fresh.ctx.cacheStatus]).to.deep.equal(['lang de', 'HIT']);
  });

  it('revalidates in the background an object it serves stale from disk only, keeping its file open', async () => {
    const large = 'L'.repeat(4096);
    origin.handle(answer(large, { 'cache-control': 'max-age=10, stale-while-revalidate=60', etag: '"big"' }));
    const small = () => phaseWith({ memory: new MemoryTier(16 * 1024) });
    const config = configWith();
    await get(small(), config);
    await eventually(() => stored.length === 1);
    const asked: (string | undefined)[] = [];
    origin.handle((req, res) => {
      asked.push(req.headers['if-none-match']);
      res.writeHead(304, { 'cache-control': 'max-age=10', etag: '"big"' }).end();
    });
    clock += 15_000;
    const phase = small();
    const stale = await get(phase, config);
    expect([stale.ctx.cacheStatus, stale.body.length]).to.deep.equal(['STALE', large.length]);
    await eventually(() => asked.length === 1 && stored.length === 2);
    expect(asked).to.deep.equal(['"big"']);
    const fresh = await get(phase, config);
    expect([fresh.ctx.cacheStatus, fresh.body]).to.deep.equal(['HIT', large]);
  });

  it('stops waiting for a leader slower than the lock timeout and fetches for itself without storing', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    origin.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'max-age=60' });
      res.write('slow ');
      void released.then(() => res.end('leader'));
      origin.handle(answer('follower', { 'cache-control': 'max-age=60' }));
    });
    const phase = phaseWith({ lockTimeoutMs: 200 });
    const config = configWith();
    const leader = contextFor(config, URL);
    await phase.run(leader);
    const started = Date.now();
    const follower = await Promise.race([get(phase, config), new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), 2000))]);
    release();
    expect(follower).to.not.equal('still waiting');
    if (follower === 'still waiting') return;
    expect([follower.body, follower.ctx.cacheStatus]).to.deep.equal(['follower', 'MISS']);
    expect(Date.now() - started).to.be.below(1500);
    expect((await bodyOf(leader.response)).toString()).to.equal('slow leader');
    await eventually(() => stored.length === 1);
    const next = await get(phase, config);
    expect([next.body, next.ctx.cacheStatus]).to.deep.equal(['slow leader', 'HIT']);
  });

  it('streams an object larger than the largest storable one and does not store it', async () => {
    const big = 'x'.repeat(64 * 1024);
    origin.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      for (let i = 0; i < 8; i++) res.write(big.slice(i * 8192, (i + 1) * 8192));
      res.end();
    });
    const phase = phaseWith({ maxObjectBytes: 16 * 1024 });
    const config = configWith();
    const first = await get(phase, config);
    expect(first.body.length).to.equal(big.length);
    const second = await get(phase, config);
    expect(second.ctx.cacheStatus).to.equal('MISS');
    expect(second.body.length).to.equal(big.length);
    expect(origin.requests).to.equal(2);
    expect(stored).to.deep.equal([]);
  });

  it('does not store a whole body (arrived with its headers, without Content-Length) larger than the largest storable one', async () => {
    const body = Buffer.alloc(32 * 1024, 'x');
    let fetches = 0;
    const fetchOrigin = async (): Promise<EdgeResponse> => {
      fetches++;
      return { status: 200, headers: { 'content-type': 'text/plain', 'cache-control': 'max-age=600' }, body };
    };
    const phase = phaseWith({ maxObjectBytes: 16 * 1024, fetchOrigin });
    const config = configWith();
    expect((await get(phase, config)).body.length).to.equal(body.length);
    const second = await get(phase, config);
    expect([second.ctx.cacheStatus, second.body.length, fetches]).to.deep.equal(['MISS', body.length, 2]);
    expect(stored).to.deep.equal([]);
  });

  it('stores a whole body that arrived with its headers and serves it as a hit', async () => {
    const fetchOrigin = async (): Promise<EdgeResponse> => ({ status: 200, headers: { 'content-type': 'text/plain', 'cache-control': 'max-age=600' }, body: Buffer.from('arrived whole') });
    const phase = phaseWith({ fetchOrigin });
    const config = configWith();
    expect((await get(phase, config)).body).to.equal('arrived whole');
    await eventually(() => stored.length === 1);
    const second = await get(phase, config);
    expect([second.ctx.cacheStatus, second.body]).to.deep.equal(['HIT', 'arrived whole']);
  });

  it('does not store a response that sets a cookie', async () => {
    origin.handle(answer('cookie', { 'set-cookie': 'session=1' }));
    const phase = phaseWith();
    const config = configWith();
    await get(phase, config);
    expect((await get(phase, config)).ctx.cacheStatus).to.equal('MISS');
  });

  it('leaves a POST to the origin phase with X-Cache: BYPASS', async () => {
    const phase = phaseWith();
    const ctx = contextFor(configWith(), URL, { method: 'POST' });
    expect(phase.run(ctx)).to.equal(false);
    expect(ctx.cacheStatus).to.equal('BYPASS');
    ctx.response = { status: 200, headers: {}, body: null };
    cacheHeaderPhase.run(ctx);
    expect(ctx.response.headers['x-cache']).to.equal('BYPASS');
  });

  it('bypasses a domain in development mode and a path under a bypass rule', async () => {
    const phase = phaseWith();
    expect(phase.run(contextFor(configWith({ cache: { development_mode: true } }), URL))).to.equal(false);
    const config = configWith({ cacheRules: [{ action: 'bypass', match: { paths: [{ kind: 'prefix', value: '/api/' }] } } as never] });
    const ctx = contextFor(config, 'http://example.com/api/x');
    expect(phase.run(ctx)).to.equal(false);
    expect(ctx.cacheStatus).to.equal('BYPASS');
  });

  it('answers HEAD, a range and a matching If-None-Match from the cached object', async () => {
    origin.handle(answer('0123456789', { etag: '"v1"' }));
    const phase = phaseWith();
    const config = configWith();
    await get(phase, config);
    const head = await get(phase, config, URL, { method: 'HEAD' });
    expect([head.ctx.response?.body, head.ctx.response?.headers['content-length'], head.ctx.cacheStatus]).to.deep.equal([null, '10', 'HIT']);
    const range = await get(phase, config, URL, { headers: { range: 'bytes=2-4' } });
    expect([range.ctx.response?.status, range.body, range.ctx.response?.headers['content-range']]).to.deep.equal([206, '234', 'bytes 2-4/10']);
    const conditional = await get(phase, config, URL, { headers: { 'if-none-match': 'W/"v1"' } });
    expect([conditional.ctx.response?.status, conditional.ctx.response?.body, conditional.ctx.response?.headers.etag]).to.deep.equal([304, null, '"v1"']);
    expect(origin.requests).to.equal(1);
  });

  it('passes a HEAD miss to the origin without storing anything', async () => {
    const phase = phaseWith();
    const config = configWith();
    const head = await get(phase, config, URL, { method: 'HEAD' });
    expect([head.ctx.response?.status, head.ctx.cacheStatus]).to.deep.equal([200, 'MISS']);
    expect((await get(phase, config)).ctx.cacheStatus).to.equal('MISS');
  });

  it('shares the disk tier between two workers and keeps it across a restart', async () => {
    const config = configWith();
    const workerA = phaseWith();
    await get(workerA, config);
    await eventually(() => stored.length === 1);
    const workerB = phaseWith();
    const fromDisk = await get(workerB, config);
    expect([fromDisk.body, fromDisk.ctx.cacheStatus]).to.deep.equal(['v1', 'HIT']);
    const index = new DiskCacheIndex(join(dir, 'cache'), 64 * 1024 * 1024);
    await index.load();
    expect(index.count).to.equal(1);
    const restarted = phaseWith();
    expect((await get(restarted, config)).ctx.cacheStatus).to.equal('HIT');
    expect(origin.requests).to.equal(1);
    expect(stored[0].size).to.be.above(2);
  });

  it('misses after a purge of memory and disk', async () => {
    const memory = new MemoryTier(16 * 1024 * 1024);
    const phase = phaseWith({ memory });
    const config = configWith();
    await get(phase, config);
    await eventually(() => stored.length === 1);
    const purge = { id: 'p1', domain_id: DOMAIN_ID, scope: 'url', value: 'https://www.example.com/page', created_at: Math.floor(clock / 1000) };
    expect(applyPurges([purge], memory, config)).to.equal(1);
    const index = new DiskCacheIndex(join(dir, 'cache'), 64 * 1024 * 1024);
    await index.load();
    expect(await index.purge(purge, 'example.com')).to.equal(1);
    expect((await get(phase, config)).ctx.cacheStatus).to.equal('MISS');
  });

  // Starts a slow MISS of /page, applies a purge of `value` while the origin is still answering, and returns the finished MISS.
  async function purgeDuringFetch(body: string, value: string): Promise<{ phase: Phase; config: ActiveConfig; miss: Awaited<ReturnType<typeof get>> }> {
    origin.handle((_req, res) => setTimeout(() => answer(body)(_req, res), 100));
    const memory = new MemoryTier(16 * 1024 * 1024);
    const purges = new PurgeLog();
    const phase = phaseWith({ memory, purges });
    const config = configWith();
    const inFlight = get(phase, config);
    await new Promise((resolve) => setTimeout(resolve, 30));
    applyPurges([{ id: 'p1', domain_id: DOMAIN_ID, scope: 'url', value, created_at: Math.floor(clock / 1000) }], memory, config, purges);
    return { phase, config, miss: await inFlight };
  }

  it('does not store an object whose fetch a purge overtook', async () => {
    const { phase, config, miss } = await purgeDuringFetch('before the purge', '/page');
    expect(miss.body).to.equal('before the purge');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stored).to.deep.equal([]);
    origin.handle(answer('after the purge'));
    const next = await get(phase, config);
    expect([next.ctx.cacheStatus, next.body]).to.deep.equal(['MISS', 'after the purge']);
  });

  it('still stores what a purge during its fetch does not cover', async () => {
    const { phase, config } = await purgeDuringFetch('kept', '/other');
    await eventually(() => stored.length === 1);
    expect((await get(phase, config)).ctx.cacheStatus).to.equal('HIT');
  });

  it('serves a disk object fetched after a purge even when the origin reports an Age older than the purge', async () => {
    origin.handle(answer('aged', { 'cache-control': 'max-age=600', age: '30' }));
    const purged = configWith({ purges: [{ id: 'p1', domain_id: DOMAIN_ID, scope: 'everything', value: null, created_at: Math.floor(clock / 1000) - 10 }] });
    await get(phaseWith(), purged);
    await eventually(() => stored.length === 1);
    const otherWorker = await get(phaseWith(), purged);
    expect([otherWorker.body, otherWorker.ctx.cacheStatus, otherWorker.ctx.response?.headers.age]).to.deep.equal(['aged', 'HIT', '30']);
  });

  it('does not serve a disk object that a purge of the active config covers before the primary removed it', async () => {
    const phase = phaseWith();
    await get(phase, configWith());
    await eventually(() => stored.length === 1);
    const purged = configWith({ purges: [{ id: 'p1', domain_id: DOMAIN_ID, scope: 'everything', value: null, created_at: Math.floor(clock / 1000) }] });
    clock += 5000;
    const otherWorker = phaseWith();
    expect((await get(otherWorker, purged)).ctx.cacheStatus).to.equal('MISS');
  });
});

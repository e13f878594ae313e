// The cache phase and its response phases against a real origin: what RFC 9111 and RFC 9213 ask of
// a shared cache (private and authorized responses, targeted fields, Age, conditional requests).
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import v8 from 'node:v8';
import { join } from 'node:path';
import { cacheHeaderPhase } from '../../../src/edge/cache/cache-header-phase.js';
import type { CachePhaseOptions } from '../../../src/edge/cache/cache-phase.js';
import type { ActiveConfig } from '../../../src/edge/config/active-config.js';
import type { RequestContext } from '../../../src/edge/pipeline/context.js';
import { hygienePhase } from '../../../src/edge/pipeline/hygiene-phase.js';
import type { Phase } from '../../../src/edge/pipeline/phase.js';
import { answer, bodyOf, cachePhaseIn, configWith, contextFor, eventually, Origin, type RequestOptions } from './helpers.js';

const URL = 'http://www.example.com/page';

describe('edge cache semantics (RFC 9111, RFC 9213)', () => {
  let origin: Origin;
  let clock: number;
  let dir: string;
  let stored: number;

  beforeEach(async () => {
    origin = await new Origin(answer('v1')).start();
    clock = Date.now();
    stored = 0;
    dir = await mkdtemp(join(tmpdir(), 'edge-cache-semantics-'));
  });
  afterEach(async () => {
    await origin.stop();
    await rm(dir, { recursive: true, force: true, maxRetries: 5 });
  });

  const phaseWith = (options: Partial<CachePhaseOptions> = {}): Phase => cachePhaseIn(dir, () => origin.port, { onStored: () => stored++, now: () => clock, ...options });

  async function get(phase: Phase, config: ActiveConfig, options: RequestOptions = {}, url = URL): Promise<{ ctx: RequestContext; body: string }> {
    const ctx = contextFor(config, url, options);
    expect(await phase.run(ctx)).to.equal(true);
    cacheHeaderPhase.run(ctx);
    return { ctx, body: (await bodyOf(ctx.response)).toString() };
  }

  const ttlRule = (fields: Record<string, unknown> = {}) => configWith({ cacheRules: [{ action: 'cache', edge_ttl_seconds: 600, ...fields } as never] });

  describe('private and authorized responses under an explicit edge TTL', () => {
    it('does not serve a Cache-Control: private response to the next visitor', async () => {
      origin.handle((req, res) => answer(`for ${req.headers.cookie ?? 'nobody'}`, { 'cache-control': 'private' })(req, res));
      const phase = phaseWith();
      const config = ttlRule();
      expect((await get(phase, config, { headers: { cookie: 'user=alice' } })).body).to.equal('for user=alice');
      const anonymous = await get(phase, config);
      expect([anonymous.body, anonymous.ctx.cacheStatus]).to.deep.equal(['for nobody', 'MISS']);
    });

    it('does not serve the answer to a request with Authorization to an anonymous visitor', async () => {
      origin.handle((req, res) => answer(`for ${req.headers.authorization ?? 'nobody'}`)(req, res));
      const phase = phaseWith();
      const config = ttlRule();
      expect((await get(phase, config, { headers: { authorization: 'Bearer alice' } })).body).to.equal('for Bearer alice');
      const anonymous = await get(phase, config);
      expect([anonymous.body, anonymous.ctx.cacheStatus]).to.deep.equal(['for nobody', 'MISS']);
    });

    it('stores private and authorized responses under a rule with cache_private, never no-store', async () => {
      origin.handle(answer('shared', { 'cache-control': 'private' }));
      const phase = phaseWith();
      const config = ttlRule({ cache_private: true });
      await get(phase, config, { headers: { authorization: 'Bearer alice' } });
      await eventually(() => stored === 1);
      expect((await get(phase, config)).ctx.cacheStatus).to.equal('HIT');
      origin.handle(answer('secret', { 'cache-control': 'no-store' }));
      await get(phase, config, {}, 'http://www.example.com/other');
      expect((await get(phase, config, {}, 'http://www.example.com/other')).ctx.cacheStatus).to.equal('MISS');
    });
  });

  describe('targeted cache control', () => {
    it('stores by CDN-Cache-Control, sends the origin Cache-Control to browsers and never the targeted field', async () => {
      origin.handle(answer('targeted', { 'cdn-cache-control': 'max-age=600', 'cache-control': 'no-cache' }));
      const phase = phaseWith();
      const config = configWith();
      const miss = await get(phase, config);
      expect(miss.ctx.response?.headers).to.include({ 'cache-control': 'no-cache' }).and.not.to.have.property('cdn-cache-control');
      await eventually(() => stored === 1);
      clock += 300_000;
      const hit = await get(phase, config);
      expect(hit.ctx.cacheStatus).to.equal('HIT');
      expect(hit.ctx.response?.headers).to.include({ 'cache-control': 'no-cache' }).and.not.to.have.property('cdn-cache-control');
    });

    it('honours the domain\'s own targeted field first and removes it too', async () => {
      origin.handle(answer('own', { 'acme-cache-control': 'no-store', 'cdn-cache-control': 'max-age=600' }));
      const phase = phaseWith();
      const config = configWith({ cache: { targeted_cache_control_header: 'Acme-Cache-Control' } });
      const miss = await get(phase, config);
      expect(miss.ctx.response?.headers).not.to.have.any.keys('acme-cache-control', 'cdn-cache-control');
      expect((await get(phase, config)).ctx.cacheStatus).to.equal('MISS');
    });

    it('removes CDN-Cache-Control from a bypassed response too', () => {
      const ctx = contextFor(configWith(), URL, { method: 'POST' });
      ctx.response = { status: 200, headers: { 'cdn-cache-control': 'max-age=60', 'cache-control': 'max-age=5' }, body: null };
      cacheHeaderPhase.run(ctx);
      expect(ctx.response.headers).to.deep.equal({ 'cache-control': 'max-age=5', 'x-cache': 'NONE' });
    });
  });

  it('counts the origin\'s Age in the Age it sends', async () => {
    origin.handle(answer('aged', { 'cache-control': 'max-age=600', age: '100' }));
    const phase = phaseWith();
    const config = configWith();
    await get(phase, config);
    clock += 20_000;
    const hit = await get(phase, config);
    expect([hit.ctx.cacheStatus, hit.ctx.response?.headers.age]).to.deep.equal(['HIT', '120']);
    clock += 481_000;
    expect((await get(phase, config)).ctx.cacheStatus).to.equal('EXPIRED');
  });

  it('does not store a response to a request with Cache-Control: no-store', async () => {
    const phase = phaseWith();
    const config = configWith();
    await get(phase, config, { headers: { 'cache-control': 'no-store' } });
    expect((await get(phase, config)).ctx.cacheStatus).to.equal('MISS');
  });

  describe('conditional requests and revalidation', () => {
    it('answers a weak If-None-Match list with 304 and the RFC 9110 §15.4.5 headers', async () => {
      origin.handle(answer('tagged', { etag: 'W/"v1"', 'cache-control': 'max-age=60', 'last-modified': 'Mon, 01 Dec 2025 00:00:00 GMT', vary: 'Accept-Encoding', 'x-extra': '1' }));
      const phase = phaseWith();
      const config = configWith();
      await get(phase, config);
      const conditional = await get(phase, config, { headers: { 'if-none-match': '"v0", "v1"' } });
      expect(conditional.ctx.response?.status).to.equal(304);
      expect(Object.keys(conditional.ctx.response!.headers).sort()).to.deep.equal(['age', 'cache-control', 'date', 'etag', 'vary', 'x-cache']);
      expect(conditional.ctx.response?.headers.etag).to.equal('W/"v1"');
      const other = await get(phase, config, { headers: { 'if-none-match': '"v2"', 'if-modified-since': 'Tue, 02 Dec 2025 00:00:00 GMT' } });
      expect([other.ctx.response?.status, other.body]).to.deep.equal([200, 'tagged']);
      const since = await get(phase, config, { headers: { 'if-modified-since': 'Tue, 02 Dec 2025 00:00:00 GMT' } });
      expect(since.ctx.response?.status).to.equal(304);
      const lenient = await get(phase, config, { headers: { 'if-modified-since': '2026' } });
      expect(lenient.ctx.response?.status).to.equal(200);
      expect(origin.requests).to.equal(1);
    });

    it('decides freshness after a 304 from the origin\'s Expires, not from the browser Cache-Control', async () => {
      const expiring = (status: number) => (_req: IncomingMessage, res: ServerResponse) => {
        res.writeHead(status, { 'content-type': 'text/plain', etag: '"e"', date: new Date(clock).toUTCString(), expires: new Date(clock + 60_000).toUTCString() });
        res.end(status === 200 ? 'expiring' : undefined);
      };
      origin.handle(expiring(200));
      const config = configWith();
      const first = await get(phaseWith(), config);
      expect(first.ctx.response?.headers['cache-control']).to.equal('max-age=14400');
      await eventually(() => stored === 1);
      origin.handle(expiring(304));
      clock += 61_000;
      // Another worker: the origin's freshness fields come from the disk file.
      const phase = phaseWith();
      const revalidated = await get(phase, config);
      expect([revalidated.body, revalidated.ctx.cacheStatus, revalidated.ctx.response?.headers['cache-control']]).to.deep.equal(['expiring', 'EXPIRED', 'max-age=14400']);
      clock += 30_000;
      expect((await get(phase, config)).ctx.cacheStatus).to.equal('HIT');
      clock += 31_000;
      expect((await get(phase, config)).ctx.cacheStatus).to.equal('EXPIRED');
      expect(origin.requests).to.equal(3);
    });

    it('keeps the origin\'s max-age and must-revalidate after a 304 under a browser TTL', async () => {
      origin.handle(answer('strict', { 'cache-control': 'max-age=60, must-revalidate', etag: '"m"' }));
      const phase = phaseWith();
      const config = configWith({ cache: { stale_if_error_seconds: 600 }, cacheRules: [{ action: 'cache', browser_ttl_seconds: 86_400 } as never] });
      expect((await get(phase, config)).ctx.response?.headers['cache-control']).to.equal('max-age=86400');
      origin.handle((_req, res) => res.writeHead(304, { etag: '"m"' }).end());
      clock += 61_000;
      const revalidated = await get(phase, config);
      expect([revalidated.ctx.cacheStatus, revalidated.ctx.response?.headers['cache-control']]).to.deep.equal(['EXPIRED', 'max-age=86400']);
      origin.handle((_req, res) => res.writeHead(503).end('down'));
      clock += 61_000;
      // must-revalidate: no stale object once the origin fails (RFC 9111 §4.2.4).
      const failed = await get(phase, config);
      expect([failed.ctx.response?.status, failed.ctx.cacheStatus]).to.deep.equal([503, 'EXPIRED']);
    });

    it('serves a fresh memory HIT without deleting a header, the targeted field and Server already gone', async () => {
      v8.setFlagsFromString('--allow-natives-syntax');
      const fastProperties = new Function('object', 'return %HasFastProperties(object)') as (object: object) => boolean;
      origin.handle(answer('lean', { 'cdn-cache-control': 'max-age=600', server: 'Apache/2.4.1', 'x-powered-by': 'PHP/8', 'cache-control': 'max-age=60' }));
      const phase = phaseWith();
      const config = configWith();
      await get(phase, config);
      const ctx = contextFor(config, URL);
      expect(phase.run(ctx)).to.equal(true);
      cacheHeaderPhase.run(ctx);
      hygienePhase.run(ctx);
      const headers = ctx.response!.headers;
      expect([ctx.cacheStatus, headers['cache-control']]).to.deep.equal(['HIT', 'max-age=60']);
      expect(headers).not.to.have.any.keys('cdn-cache-control', 'server', 'x-powered-by');
      expect(fastProperties(headers)).to.equal(true);
    });

    it('revalidates with the stored ETag exactly as the origin sent it', async () => {
      origin.handle(answer('tagged', { 'cache-control': 'max-age=10', etag: 'W/"a,b"' }));
      const phase = phaseWith();
      const config = configWith();
      await get(phase, config);
      await eventually(() => stored === 1);
      const asked: (string | undefined)[] = [];
      origin.handle((req, res) => {
        asked.push(req.headers['if-none-match']);
        res.writeHead(304, { 'cache-control': 'max-age=60', etag: 'W/"a,b"' });
        res.end();
      });
      clock += 11_000;
      expect((await get(phase, config)).body).to.equal('tagged');
      expect(asked).to.deep.equal(['W/"a,b"']);
    });
  });
});

import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readlink, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { cacheHeaderPhase } from '../../../src/edge/cache/cache-header-phase.js';
import { createCachePhase, type CachePhaseOptions } from '../../../src/edge/cache/cache-phase.js';
import { DiskTier } from '../../../src/edge/cache/disk-tier.js';
import { MemoryTier } from '../../../src/edge/cache/memory-tier.js';
import type { ActiveConfig } from '../../../src/edge/config/active-config.js';
import type { RequestContext } from '../../../src/edge/pipeline/context.js';
import type { Phase } from '../../../src/edge/pipeline/phase.js';
import { bodyOf, configWith, contextFor, eventually, Origin, proxyTo, type RequestOptions } from './helpers.js';

const URL = 'http://www.example.com/large';
const CHUNK = 64 * 1024;
/** The memory tier of these tests takes objects up to 4 KiB (1/16 of it): the bodies below go to disk. */
const MEMORY_BYTES = 64 * 1024;

// An origin answering `body` in 64 KiB writes, with Content-Length unless `chunked`; `cutAt` ends the connection after that many bytes.
function serve(body: Buffer, options: { chunked?: boolean; cutAt?: number; headers?: Record<string, string> } = {}) {
  return (_req: IncomingMessage, res: ServerResponse) => {
    const length = options.chunked ? {} : { 'content-length': String(body.length) };
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'cache-control': 'max-age=60', ...length, ...options.headers });
    const end = options.cutAt ?? body.length;
    for (let offset = 0; offset < end; offset += CHUNK) res.write(body.subarray(offset, Math.min(offset + CHUNK, end)));
    if (options.cutAt === undefined) res.end();
    else setTimeout(() => res.destroy(), 20);
  };
}

describe('edge cache with objects larger than the memory tier takes', () => {
  let origin: Origin;
  let dir: string;
  let clock: number;
  let stored: { file: string; size: number }[];
  let errors: unknown[];

  beforeEach(async () => {
    origin = await new Origin(() => undefined).start();
    dir = await mkdtemp(join(tmpdir(), 'edge-large-'));
    clock = Date.now();
    stored = [];
    errors = [];
  });
  afterEach(async () => {
    await origin.stop();
    await rm(dir, { recursive: true, force: true, maxRetries: 5 });
  });

  const cacheDir = () => join(dir, 'cache');
  const phaseWith = (options: Partial<CachePhaseOptions> = {}): Phase =>
    createCachePhase({
      memory: new MemoryTier(MEMORY_BYTES),
      disk: new DiskTier(cacheDir(), 64 * 1024 * 1024),
      fetchOrigin: proxyTo(() => origin.port),
      onStored: (file, size) => stored.push({ file, size }),
      onError: (error) => errors.push(error),
      now: () => clock,
      ...options,
    });

  async function get(phase: Phase, config: ActiveConfig, url = URL, options: RequestOptions = {}): Promise<{ ctx: RequestContext; body: Buffer }> {
    const ctx = contextFor(config, url, options);
    if (await phase.run(ctx)) cacheHeaderPhase.run(ctx);
    return { ctx, body: await bodyOf(ctx.response) };
  }

  // Files of stored objects and of unfinished writes under the cache folder.
  async function filesOnDisk(): Promise<{ objects: string[]; temps: string[] }> {
    const objects: string[] = [];
    for (const shard of await readdir(cacheDir()).catch(() => [] as string[])) {
      if (shard !== 'tmp') for (const name of await readdir(join(cacheDir(), shard))) objects.push(`${shard}/${name}`);
    }
    return { objects, temps: await readdir(join(cacheDir(), 'tmp')).catch(() => []) };
  }

  // Descriptors this process holds open on files under the test's folder.
  async function openFiles(): Promise<number> {
    let count = 0;
    for (const fd of await readdir('/proc/self/fd')) if ((await readlink(`/proc/self/fd/${fd}`).catch(() => '')).startsWith(dir)) count++;
    return count;
  }

  for (const chunked of [false, true]) {
    it(`stores a ${chunked ? 'chunked' : 'declared-length'} body too large for memory on disk and serves it from the file byte for byte`, async () => {
      const body = randomBytes(1024 * 1024 + 123);
      origin.handle(serve(body, { chunked }));
      const phase = phaseWith();
      const config = configWith();
      const miss = await get(phase, config);
      expect(miss.ctx.cacheStatus).to.equal('MISS');
      expect(miss.body.equals(body)).to.equal(true);
      await eventually(() => stored.length === 1);
      expect(await filesOnDisk()).to.deep.equal({ objects: [stored[0].file], temps: [] });

      const hit = await get(phase, config);
      expect(hit.ctx.cacheStatus).to.equal('HIT');
      expect(hit.ctx.response?.body).to.be.instanceOf(Readable);
      expect(hit.ctx.response?.headers['content-length']).to.equal(String(body.length));
      expect(hit.body.equals(body)).to.equal(true);
      expect(origin.requests).to.equal(1);
      expect(errors).to.deep.equal([]);
    });
  }

  it('answers a Range of a disk object from the file, and 416 past its end', async () => {
    const body = randomBytes(300 * 1024);
    origin.handle(serve(body));
    const phase = phaseWith();
    const config = configWith();
    await get(phase, config);
    await eventually(() => stored.length === 1);
    const middle = await get(phase, config, URL, { headers: { range: 'bytes=100000-200000' } });
    expect([middle.ctx.response?.status, middle.ctx.response?.headers['content-range'], middle.ctx.response?.headers['content-length']]).to.deep.equal([206, `bytes 100000-200000/${body.length}`, '100001']);
    expect(middle.ctx.response?.body).to.be.instanceOf(Readable);
    expect(middle.body.equals(body.subarray(100000, 200001))).to.equal(true);
    const suffix = await get(phase, config, URL, { headers: { range: 'bytes=-10' } });
    expect(suffix.body.equals(body.subarray(body.length - 10))).to.equal(true);
    const past = await get(phase, config, URL, { headers: { range: `bytes=${body.length}-` } });
    expect([past.ctx.response?.status, past.ctx.response?.headers['content-range']]).to.deep.equal([416, `bytes */${body.length}`]);
    expect(origin.requests).to.equal(1);
  });

  for (const chunked of [false, true]) {
    it(`leaves no file and no temp file when a ${chunked ? 'chunked' : 'declared-length'} origin body is cut off`, async () => {
      const body = randomBytes(512 * 1024);
      origin.handle(serve(body, { chunked, cutAt: 256 * 1024 }));
      const phase = phaseWith();
      const config = configWith();
      const failed = await get(phase, config).catch((error: Error) => error);
      expect(failed).to.be.instanceOf(Error);
      await eventually(async () => (await filesOnDisk()).temps.length === 0);
      expect(await filesOnDisk()).to.deep.equal({ objects: [], temps: [] });
      expect(stored).to.deep.equal([]);
      origin.handle(serve(body, { chunked }));
      expect((await get(phase, config)).ctx.cacheStatus).to.equal('MISS');
    });
  }

  it('passes a fill through unstored (MISS) while every disk fill slot of the worker is taken', async () => {
    const body = randomBytes(256 * 1024);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    origin.handle((req, res) => {
      if (req.url !== '/slow') return serve(body)(req, res);
      res.writeHead(200, { 'content-length': String(body.length), 'cache-control': 'max-age=60' });
      res.write(body.subarray(0, CHUNK));
      void held.then(() => res.end(body.subarray(CHUNK)));
    });
    const phase = phaseWith({ maxDiskFills: 1 });
    const config = configWith();
    const slow = get(phase, config, 'http://www.example.com/slow');
    await eventually(() => origin.requests === 1);
    const passed = await get(phase, config);
    expect([passed.ctx.cacheStatus, passed.ctx.response?.headers['x-cache']]).to.deep.equal(['MISS', 'MISS']);
    expect(passed.body.equals(body)).to.equal(true);
    release();
    expect((await slow).body.equals(body)).to.equal(true);
    await eventually(() => stored.length === 1);
    expect((await get(phase, config, 'http://www.example.com/slow')).ctx.cacheStatus).to.equal('HIT');
    expect((await get(phase, config)).ctx.cacheStatus).to.equal('MISS');
  });

  it('closes the file of a disk object once its response is done, for GET, HEAD and an expired object', async () => {
    const body = randomBytes(200 * 1024);
    origin.handle(serve(body, { headers: { 'cache-control': 'max-age=10' } }));
    const phase = phaseWith();
    const config = configWith();
    await get(phase, config);
    await eventually(() => stored.length === 1);
    expect((await get(phase, config)).body.equals(body)).to.equal(true);
    const head = await get(phase, config, URL, { method: 'HEAD' });
    expect([head.ctx.cacheStatus, head.ctx.response?.body, head.ctx.response?.headers['content-length']]).to.deep.equal(['HIT', null, String(body.length)]);
    clock += 11_000;
    expect((await get(phase, config)).ctx.cacheStatus).to.equal('EXPIRED');
    await eventually(async () => (await openFiles()) === 0);
  });

  it('revalidates an expired disk object with a 304 and keeps serving it from disk with the new headers', async () => {
    const body = randomBytes(200 * 1024);
    origin.handle(serve(body, { headers: { 'cache-control': 'max-age=10', etag: '"big"' } }));
    const phase = phaseWith();
    const config = configWith();
    await get(phase, config);
    await eventually(() => stored.length === 1);
    origin.handle((_req, res) => res.writeHead(304, { 'cache-control': 'max-age=60', etag: '"big"', 'x-origin': 'confirmed' }).end());
    clock += 11_000;
    const revalidated = await get(phase, config);
    expect([revalidated.ctx.cacheStatus, revalidated.ctx.response?.headers['x-origin']]).to.deep.equal(['EXPIRED', 'confirmed']);
    expect(revalidated.body.equals(body)).to.equal(true);
    await eventually(() => stored.length === 2);
    clock += 30_000;
    const otherWorker = phaseWith();
    const hit = await get(otherWorker, config);
    expect([hit.ctx.cacheStatus, hit.ctx.response?.headers['x-origin']]).to.deep.equal(['HIT', 'confirmed']);
    expect(hit.body.equals(body)).to.equal(true);
    expect(await filesOnDisk()).to.deep.equal({ objects: [stored[0].file], temps: [] });
    await eventually(async () => (await openFiles()) === 0);
  });
});

import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import http, { type ServerResponse } from 'node:http';
import path from 'node:path';
import { TestCore } from '../../support/core.js';
import { EdgeProcess, residentBytes } from '../../support/edge-process.js';
import { createSite, publish, TestOrigin } from '../../support/edge-site.js';
import { eventually } from '../../support/eventually.js';

const TOKEN = 'cdnedge_e2e-large-fills-token-0123456789ab';
const HOST = 'www.fills.example';
const MiB = 1024 * 1024;
const BODY_BYTES = 50 * MiB;
const FILLS = 20;
const CHUNK_BYTES = 64 * 1024;
/** What each worker's RSS may grow over its baseline while 20 fills of 50 MiB run (docs/edge-cache.md, "Fills"). */
const RSS_GROWTH_BOUND = 100 * MiB;
const RSS_SAMPLE_MS = 50;

type Fetched = { status: number; cache: string; length: number; sha256: string };

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

// The origin makes each body chunk by chunk as it sends it (never whole), hashing what it sent.
async function sendBody(res: ServerResponse, index: number, pattern: Buffer): Promise<string | undefined> {
  const hash = createHash('sha256');
  for (let offset = 0; offset < BODY_BYTES; offset += CHUNK_BYTES) {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    pattern.copy(chunk);
    chunk.writeUInt32BE(index, 0);
    chunk.writeUInt32BE(offset / CHUNK_BYTES, 4);
    hash.update(chunk);
    if (res.destroyed) return undefined;
    if (!res.write(chunk)) await drained(res);
  }
  res.end();
  return hash.digest('hex');
}

// A client that hashes the body as it arrives and keeps none of it.
function fetchThroughEdge(port: number, target: string): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path: target, headers: { host: HOST }, agent: false, timeout: 60000 }, (response) => {
      const hash = createHash('sha256');
      let length = 0;
      response.on('data', (chunk: Buffer) => {
        length += chunk.length;
        hash.update(chunk);
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, cache: String(response.headers['x-cache']), length, sha256: hash.digest('hex') }));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`${target} timed out`)));
    request.on('error', reject);
  });
}

// Stored objects (`xx/<64 hex>`) and unfinished writes under the edge's cache folder.
async function cacheFiles(cacheDir: string): Promise<{ objects: number[]; temps: string[] }> {
  const objects: number[] = [];
  for (const shard of await readdir(cacheDir).catch(() => [] as string[])) {
    if (!/^[0-9a-f]{2}$/.test(shard)) continue;
    for (const name of await readdir(path.join(cacheDir, shard))) objects.push((await stat(path.join(cacheDir, shard, name))).size);
  }
  const temps = await readdir(path.join(cacheDir, 'tmp')).catch(() => [] as string[]);
  return { objects, temps };
}

describe('cdn edge fills large objects through the disk tier with bounded memory', function () {
  this.timeout(120000);
  const sent = new Map<string, string>();
  let core: TestCore;
  let origin: TestOrigin;
  let edge: EdgeProcess;

  before(async () => {
    const pattern = randomBytes(CHUNK_BYTES);
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN });
    // /big/<n>: 50 MiB, cacheable; even n declare Content-Length, odd n are chunked. Anything else: a small object.
    origin = await TestOrigin.start('large', (req, res) => {
      req.resume();
      const index = /^\/big\/(\d+)$/.exec(req.url ?? '')?.[1];
      if (index === undefined) return void res.writeHead(200, { 'cache-control': 'max-age=3600', 'content-type': 'text/plain' }).end(`small ${req.url}`);
      const declared = Number(index) % 2 === 0 ? { 'content-length': String(BODY_BYTES) } : {};
      res.writeHead(200, { 'cache-control': 'max-age=3600', 'content-type': 'application/octet-stream', ...declared });
      void sendBody(res, Number(index), pattern).then((sha256) => sha256 && sent.set(req.url!, sha256));
    });
    await createSite(core, 'fills.example', origin.port);
    await publish(core);
    edge = await EdgeProcess.start({ coreUrl: core.url, token: TOKEN, env: { CDN_EDGE_CACHE_DISK_BYTES: String(4 * 1024 * MiB) } });
  });
  after(async () => {
    await edge?.stop();
    await origin?.stop();
    await core?.stop();
  });

  it('streams 20 concurrent 50 MiB fills to disk whole, each worker growing less than 100 MB, and serves them again from disk', async () => {
    const workers = await edge.workerPids();
    expect(workers).to.have.length(2);
    for (let index = 0; index < 20; index++) expect((await edge.request(HOST, `/small/${index}`)).status).to.equal(200);
    const baseline = await Promise.all(workers.map(residentBytes));
    const peak = [...baseline];
    const sampler = setInterval(() => {
      workers.forEach((pid, slot) => void residentBytes(pid).then((bytes) => (peak[slot] = Math.max(peak[slot], bytes)), () => undefined));
    }, RSS_SAMPLE_MS);
    let fetched: Fetched[];
    try {
      fetched = await Promise.all(Array.from({ length: FILLS }, (_, index) => fetchThroughEdge(edge.port, `/big/${index}`)));
    } finally {
      clearInterval(sampler);
    }

    fetched.forEach((result, index) => {
      expect(result, `/big/${index}`).to.deep.include({ status: 200, cache: 'MISS', length: BODY_BYTES });
      expect(result.sha256, `/big/${index} arrived as sent`).to.equal(sent.get(`/big/${index}`));
    });
    const growth = peak.map((bytes, slot) => bytes - baseline[slot]);
    for (const bytes of growth) expect(bytes, `worker RSS growth ${growth.map((b) => `${Math.round(b / MiB)} MB`).join(', ')}`).to.be.below(RSS_GROWTH_BOUND);

    const cacheDir = path.join(edge.dataDir, 'cache');
    const files = await eventually('every fill to be stored', async () => {
      const found = await cacheFiles(cacheDir);
      return found.objects.filter((size) => size > BODY_BYTES).length === FILLS ? found : undefined;
    });
    expect(files.temps, 'temp files left').to.deep.equal([]);

    for (const target of ['/big/0', '/big/1']) {
      const again = await fetchThroughEdge(edge.port, target);
      expect(again, target).to.deep.include({ status: 200, cache: 'HIT', length: BODY_BYTES, sha256: sent.get(target) });
      expect(origin.count(target), `${target} origin fetches`).to.equal(1);
    }
  });
});

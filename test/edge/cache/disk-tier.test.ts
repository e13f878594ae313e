import { expect } from 'chai';
import { mkdtemp, readdir, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiskCacheIndex } from '../../../src/edge/cache/disk-index.js';
import { fileNameOf } from '../../../src/edge/cache/disk-format.js';
import { DiskBody, releaseBody } from '../../../src/edge/cache/disk-body.js';
import { DiskTier } from '../../../src/edge/cache/disk-tier.js';
import { bodyOf, DOMAIN_ID, entry } from './helpers.js';

describe('edge cache disk tier', () => {
  let dir: string;
  beforeEach(async () => {
    dir = join(await mkdtemp(join(tmpdir(), 'edge-cache-')), 'cache');
  });
  afterEach(async () => {
    await rm(join(dir, '..'), { recursive: true, force: true });
  });

  it('lets a second worker read what the first wrote, headers and body intact', async () => {
    const first = new DiskTier(dir, 1 << 20);
    const second = new DiskTier(dir, 1 << 20);
    const stored = entry('k', 0, { body: Buffer.from('hello'), headers: { 'content-type': 'text/plain' }, vary: ['accept-encoding'], query: 'a=1' });
    const { file, size } = await first.put(stored);
    expect(file).to.equal(fileNameOf('k'));
    expect(size).to.be.above(5);
    const read = await second.get('k');
    expect(read?.body.toString()).to.equal('hello');
    expect(read).to.deep.include({ key: 'k', domainId: DOMAIN_ID, status: 200, query: 'a=1', freshUntil: stored.freshUntil, marker: false });
    expect(read?.headers).to.deep.equal({ 'content-type': 'text/plain' });
    expect(read?.vary).to.deep.equal(['accept-encoding']);
  });

  it('keeps the origin\'s freshness fields and the fetch time in the file', async () => {
    const tier = new DiskTier(dir, 1 << 20);
    await tier.put(entry('k', 3, { originFreshness: { 'cache-control': 'max-age=60, must-revalidate', 'cdn-cache-control': 'max-age=600' }, fetchedAt: 1_700_000_000_123 }));
    const read = await tier.get('k');
    expect(read?.originFreshness).to.deep.equal({ 'cache-control': 'max-age=60, must-revalidate', 'cdn-cache-control': 'max-age=600' });
    expect(read?.fetchedAt).to.equal(1_700_000_000_123);
  });

  it('treats a file of the older format as a miss and removes it, while purges still find it', async () => {
    const old = { key: 'old', domain_id: DOMAIN_ID, host: 'example.com', path: '/old', query: '', status: 200, headers: { 'cache-control': 'max-age=14400' }, stored_at: 1, fresh_until: Date.now() + 60_000, swr_until: 0, sie_until: 0, vary: [], marker: false };
    const json = Buffer.from(JSON.stringify(old));
    const prefix = Buffer.alloc(8);
    Buffer.from('CDNC').copy(prefix);
    prefix.writeUInt32BE(json.length, 4);
    const file = fileNameOf('old');
    await mkdir(join(dir, file.slice(0, 2)), { recursive: true });
    await writeFile(join(dir, file), Buffer.concat([prefix, json, Buffer.from('body')]));
    const index = new DiskCacheIndex(dir, 1 << 20);
    await index.load();
    expect(await index.purge({ id: 'p1', domain_id: DOMAIN_ID, scope: 'url', value: '/old', created_at: 0 }, 'example.com')).to.equal(1);
    await writeFile(join(dir, file), Buffer.concat([prefix, json, Buffer.from('body')]));
    expect(await new DiskTier(dir, 1 << 20).get('old')).to.equal(undefined);
    expect(await readdir(join(dir, file.slice(0, 2)))).to.deep.equal([]);
  });

  it('leaves a body larger than the caller takes whole in its file, and streams any part of it', async () => {
    const tier = new DiskTier(dir, 1 << 20);
    const body = Buffer.from('0123456789'.repeat(100));
    await tier.put(entry('large', 0, { body }));
    expect((await tier.get('large'))?.body).to.deep.equal(body);
    const read = await tier.get('large', 999);
    if (!(read?.body instanceof DiskBody)) throw new Error('expected the body to stay in its file');
    expect(read.body.length).to.equal(1000);
    expect((await bodyOf({ status: 200, headers: {}, body: read.body.stream() })).equals(body)).to.equal(true);
    expect((await bodyOf({ status: 206, headers: {}, body: read.body.stream(995, 999) })).toString()).to.equal('56789');
    releaseBody(read.body);
  });

  it('keeps serving the body it opened after a newer version was written over it', async () => {
    const tier = new DiskTier(dir, 1 << 20);
    await tier.put(entry('replaced', 0, { body: Buffer.alloc(1000, 'a') }));
    const read = await tier.get('replaced', 0);
    await tier.put(entry('replaced', 0, { body: Buffer.alloc(2000, 'b'), headers: { 'x-version': '2' } }));
    const sent = await bodyOf({ status: 200, headers: {}, body: (read!.body as DiskBody).stream() });
    releaseBody(read!.body);
    expect(sent.equals(Buffer.alloc(1000, 'a'))).to.equal(true);
    expect((await tier.get('replaced'))?.body).to.deep.equal(Buffer.alloc(2000, 'b'));
  });

  it('serves objects still on disk after a restart (new instances on the same folder)', async () => {
    await new DiskTier(dir, 1 << 20).put(entry('kept', 0, { body: Buffer.from('warm') }));
    const index = new DiskCacheIndex(dir, 1 << 20);
    await index.load();
    expect(index.count).to.equal(1);
    expect((await new DiskTier(dir, 1 << 20).get('kept'))?.body.toString()).to.equal('warm');
  });

  it('answers undefined for an absent key and removes a file that is not a stored object', async () => {
    const tier = new DiskTier(dir, 1 << 20);
    expect(await tier.get('nothing')).to.equal(undefined);
    const file = join(dir, fileNameOf('garbage'));
    await mkdir(join(file, '..'), { recursive: true });
    await writeFile(file, 'not an object');
    expect(await tier.get('garbage')).to.equal(undefined);
    expect(await readdir(join(file, '..'))).to.deep.equal([]);
  });

  it('leaves no temp file behind after a write, and the index removes those of interrupted writes', async () => {
    const tier = new DiskTier(dir, 1 << 20);
    await tier.put(entry('a', 10));
    expect(await readdir(join(dir, 'tmp'))).to.deep.equal([]);
    await writeFile(join(dir, 'tmp', 'half-written'), 'x');
    await new DiskCacheIndex(dir, 1 << 20).load();
    expect(await readdir(dir)).to.not.include('tmp');
  });

  it('evicts the least recently stored files until the folder is under its bound', async () => {
    const tier = new DiskTier(dir, 1 << 20);
    const index = new DiskCacheIndex(dir, 5000);
    await index.load();
    for (const key of ['a', 'b', 'c', 'd']) {
      const { file, size, resource } = await tier.put(entry(key, 1500));
      index.noteStored(file, size, resource);
    }
    await index.evict();
    expect(index.bytes).to.be.at.most(5000);
    // Four files stored, each counted once when it went.
    expect(index.evictions).to.be.greaterThan(0).and.to.equal(4 - index.count);
    expect(await tier.get('a')).to.equal(undefined);
    expect(await tier.get('d')).to.not.equal(undefined);
    const again = await tier.put(entry('b', 1500));
    index.noteStored(again.file, again.size, again.resource);
    await index.evict();
    expect(await tier.get('b')).to.not.equal(undefined);
  });

  it('evicts down to the bound on load, oldest files first', async () => {
    const tier = new DiskTier(dir, 1 << 20);
    for (const key of ['a', 'b', 'c']) {
      await tier.put(entry(key, 1500));
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    const index = new DiskCacheIndex(dir, 3700);
    await index.load();
    expect(index.count).to.equal(2);
    expect(await tier.get('a')).to.equal(undefined);
  });

  it('ignores a stored-file notice naming a path outside the folder', async () => {
    const index = new DiskCacheIndex(dir, 100);
    index.noteStored('../../etc/passwd', 10, 'dom-1\nexample.com\n/');
    expect(index.count).to.equal(0);
  });

  it('removes the files a purge matches, and nothing more on a second run', async () => {
    const tier = new DiskTier(dir, 1 << 20);
    const index = new DiskCacheIndex(dir, 1 << 20);
    await index.load();
    for (const [key, path] of [['a', '/img/a.png'], ['b', '/css/b.css'], ['c', '/img/c.png']]) {
      const { file, size, resource } = await tier.put(entry(key, 10, { path }));
      index.noteStored(file, size, resource);
    }
    const purge = { id: 'p1', domain_id: DOMAIN_ID, scope: 'prefix', value: '/img/', created_at: 0 };
    expect(await index.purge(purge, 'example.com')).to.equal(2);
    expect(await index.purge(purge, 'example.com')).to.equal(0);
    expect(await tier.get('a')).to.equal(undefined);
    expect(await tier.get('b')).to.not.equal(undefined);
    expect(index.count).to.equal(1);
  });
});

import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { releaseBody, sendable } from '../../../src/edge/cache/disk-body.js';
import { encodeHeader } from '../../../src/edge/cache/disk-format.js';
import { DiskTier } from '../../../src/edge/cache/disk-tier.js';
import { FillLimits, FillWriter, type Filled, type FillPlan } from '../../../src/edge/cache/fill-writer.js';
import { teeForStore } from '../../../src/edge/cache/tee.js';
import { bodyOf, entry, eventually } from './helpers.js';

const KiB = 1024;

// A source of `count` chunks of `size` bytes, made as it is read.
function source(count: number, size: number): { stream: Readable; bytes: Buffer } {
  const chunks = Array.from({ length: count }, () => randomBytes(size));
  return { stream: Readable.from(chunks, { objectMode: false }), bytes: Buffer.concat(chunks) };
}

describe('edge cache fill writer', () => {
  let dir: string;
  let disk: DiskTier;
  let errors: unknown[];
  beforeEach(async () => {
    dir = join(await mkdtemp(join(tmpdir(), 'edge-fill-')), 'cache');
    disk = new DiskTier(dir, 1 << 30);
    errors = [];
  });
  afterEach(async () => {
    expect(errors).to.deep.equal([]);
    await rm(join(dir, '..'), { recursive: true, force: true });
  });

  // A writer for `limits`; resolves `result` with what it filled (null: nothing).
  function writer(limits: FillLimits, plan: Partial<FillPlan> = {}): { writer: FillWriter | undefined; result: Promise<Filled | null> } {
    let settle!: (filled: Filled | null) => void;
    const result = new Promise<Filled | null>((resolve) => (settle = resolve));
    const room = encodeHeader(entry('k', 0, { headers: { 'content-length': String(1 << 30) } })).length;
    const started = FillWriter.start({ limit: 1 << 20, memoryLimit: 64 * KiB, declared: undefined, spool: () => disk.spool(room), limits, done: settle, onError: (error) => errors.push(error), ...plan });
    return { writer: started, result };
  }

  async function temps(): Promise<string[]> {
    return readdir(join(dir, 'tmp')).catch(() => []);
  }

  it('holds a body in memory while it fits the memory tier and the worker budget', async () => {
    const limits = new FillLimits(4, 256 * KiB);
    const { writer: sink, result } = writer(limits);
    const body = source(4, 8 * KiB);
    await bodyOf({ status: 200, headers: {}, body: teeForStore(body.stream, sink!) });
    const filled = await result;
    expect(filled && 'body' in filled && filled.body.equals(body.bytes)).to.equal(true);
    await eventually(() => limits.heldBytes === 0);
    expect(await temps()).to.deep.equal([]);
  });

  it('spills a body past the memory limit to a spool that the store commits into place, byte for byte', async () => {
    const limits = new FillLimits(4, 1 << 20);
    let length = 0;
    const { writer: sink } = writer(limits, {
      // The store commits before the writer finishes; what it does not commit is removed.
      done: async (filled) => {
        if (!filled || !('spool' in filled)) throw new Error('expected a spooled body');
        length = filled.length;
        await filled.spool.commit(entry('k', 0, { headers: { 'content-length': String(filled.length) } }));
      },
    });
    const body = source(20, 16 * KiB);
    const sent = await bodyOf({ status: 200, headers: {}, body: teeForStore(body.stream, sink!) });
    expect(sent.equals(body.bytes)).to.equal(true);
    expect(length).to.equal(body.bytes.length);
    const read = await disk.get('k', 0);
    expect(read?.headers['content-length']).to.equal(String(body.bytes.length));
    expect((await bodyOf({ status: 200, headers: {}, body: sendable(read!.body) })).equals(body.bytes)).to.equal(true);
    releaseBody(read!.body);
    expect(await temps()).to.deep.equal([]);
    await eventually(() => limits.spooling === 0 && limits.heldBytes === 0);
  });

  it('spills to disk once other fills hold the worker budget, though the body would fit the memory tier', async () => {
    const limits = new FillLimits(4, 48 * KiB);
    const first = writer(limits);
    const second = writer(limits);
    const bodies = [source(4, 8 * KiB), source(4, 8 * KiB)];
    const firstClient = teeForStore(bodies[0].stream, first.writer!);
    const secondClient = teeForStore(bodies[1].stream, second.writer!);
    await Promise.all([bodyOf({ status: 200, headers: {}, body: firstClient }), bodyOf({ status: 200, headers: {}, body: secondClient })]);
    const kinds = (await Promise.all([first.result, second.result])).map((filled) => (filled && 'spool' in filled ? 'disk' : 'memory'));
    expect(kinds.sort()).to.deep.equal(['disk', 'memory']);
  });

  it('writes a body whose declared length is above the memory limit to disk from its first byte', async () => {
    const limits = new FillLimits(4, 1 << 20);
    const { writer: sink, result } = writer(limits, { declared: 128 * KiB });
    const body = source(8, 16 * KiB);
    const client = teeForStore(body.stream, sink!);
    let peakHeld = 0;
    client.on('data', () => (peakHeld = Math.max(peakHeld, limits.heldBytes)));
    await bodyOf({ status: 200, headers: {}, body: client });
    expect(await result).to.have.property('spool');
    expect(peakHeld).to.equal(0);
  });

  it('has no writer for a disk-first body while every disk fill slot is taken, and one once a slot is returned', async () => {
    const limits = new FillLimits(1, 1 << 20);
    const first = writer(limits, { declared: 128 * KiB });
    expect(writer(limits, { declared: 128 * KiB }).writer).to.equal(undefined);
    first.writer!.destroy();
    expect(await first.result).to.equal(null);
    expect(writer(limits, { declared: 128 * KiB }).writer).to.be.instanceOf(FillWriter);
  });

  it('gives up without a disk tier past what memory may hold, and the client still gets every byte', async () => {
    const limits = new FillLimits(4, 1 << 20);
    const { writer: sink, result } = writer(limits, { spool: null });
    const body = source(8, 16 * KiB);
    const sent = await bodyOf({ status: 200, headers: {}, body: teeForStore(body.stream, sink!) });
    expect(sent.equals(body.bytes)).to.equal(true);
    expect(await result).to.equal(null);
    await eventually(() => limits.heldBytes === 0);
  });

  it('gives up past the object limit and removes what it had spooled', async () => {
    const limits = new FillLimits(4, 1 << 20);
    const { writer: sink, result } = writer(limits, { limit: 100 * KiB });
    const body = source(10, 16 * KiB);
    const sent = await bodyOf({ status: 200, headers: {}, body: teeForStore(body.stream, sink!) });
    expect(sent.equals(body.bytes)).to.equal(true);
    expect(await result).to.equal(null);
    await eventually(async () => (await temps()).length === 0 && limits.spooling === 0);
  });

  it('goes on storing the whole body after the client left', async () => {
    const limits = new FillLimits(4, 1 << 20);
    const { writer: sink, result } = writer(limits);
    const body = source(40, 16 * KiB);
    const client = teeForStore(body.stream, sink!);
    client.once('data', () => client.destroy());
    const filled = await result;
    expect(filled).to.have.property('length', body.bytes.length);
  });

  it('removes the spool of a body the origin cut off, and the client sees an error', async () => {
    const limits = new FillLimits(4, 1 << 20);
    const { writer: sink, result } = writer(limits, { declared: 1 << 20 });
    const origin = new Readable({ read() {} });
    const client = teeForStore(origin, sink!);
    const received = bodyOf({ status: 200, headers: {}, body: client }).catch((error: Error) => error);
    origin.push(randomBytes(64 * KiB));
    await eventually(async () => (await temps()).length === 1);
    origin.destroy(new Error('connection reset'));
    expect(await received).to.be.instanceOf(Error);
    expect(await result).to.equal(null);
    await eventually(async () => (await temps()).length === 0 && limits.spooling === 0);
  });
});

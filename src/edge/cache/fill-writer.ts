// Takes an origin body for the store while it streams to the client, with bounded
// memory (docs/edge-cache.md, "Fills"). A body is held in memory only while it
// could go to the memory tier (up to its per-object limit) and the worker's fill
// budget has room; past that it is spilled into a disk spool and streamed there,
// as nginx's proxy_cache writes its temp file. A Writable, so the tee follows
// its backpressure: a slow disk slows the origin, never fills memory.
import { Buffer } from 'node:buffer';
import { Writable } from 'node:stream';
import type { DiskSpool } from './disk-spool.js';

/** Bytes a fill queues for its spool before the tee pauses the origin. */
const QUEUE_BYTES = 256 * 1024;

/** How a body ended whole: in memory, or in a spool on disk holding `length` bytes. */
export type Filled = { body: Buffer } | { spool: DiskSpool; length: number };

/** A worker's bounds on fills in progress: how many spool to disk at once, and how many body bytes all hold in memory. */
export class FillLimits {
  private spools = 0;
  private held = 0;

  constructor(
    readonly maxSpools: number,
    readonly memoryBytes: number,
  ) {}

  /** Fills writing to disk now. */
  get spooling(): number {
    return this.spools;
  }

  /** Body bytes fills hold in memory now. */
  get heldBytes(): number {
    return this.held;
  }

  /** Takes one of the disk fill slots; false when all are taken. */
  takeSpool(): boolean {
    if (this.spools >= this.maxSpools) return false;
    this.spools++;
    return true;
  }

  returnSpool(): void {
    this.spools--;
  }

  /** Counts `bytes` more held in memory; false (nothing counted) when they do not fit the budget. */
  hold(bytes: number): boolean {
    if (this.held + bytes > this.memoryBytes) return false;
    this.held += bytes;
    return true;
  }

  letGo(bytes: number): void {
    this.held -= bytes;
  }
}

export type FillPlan = {
  /** The largest body stored: past it the fill gives up. */
  limit: number;
  /** The largest body held in memory (the memory tier's per-object limit): past it the body goes to disk. */
  memoryLimit: number;
  /** The body's declared length (Content-Length), if any: above `memoryLimit` it goes to disk from its first byte. */
  declared: number | undefined;
  /** Opens a spool with room for the object's header; null without a disk tier (the fill gives up where it would spill). */
  spool: (() => Promise<DiskSpool>) | null;
  limits: FillLimits;
  /** Stores what was filled, or learns that nothing will be (null); called once. The writer finishes when it resolves. */
  done: (filled: Filled | null) => Promise<void> | void;
  /** Spool failures: the fill gives up and the client's response goes on. */
  onError: (error: unknown) => void;
};

export class FillWriter extends Writable {
  private chunks: Buffer[] | null = [];
  private size = 0;
  private held = 0;
  private file: DiskSpool | undefined;
  private hasSlot: boolean;
  private reported = false;

  private constructor(
    private readonly plan: FillPlan,
    private readonly diskFirst: boolean,
  ) {
    super({ highWaterMark: QUEUE_BYTES });
    this.hasSlot = diskFirst;
  }

  /** A writer for one fill; undefined when its declared length sends it to disk and every disk fill slot is taken (the response is then not stored). */
  static start(plan: FillPlan): FillWriter | undefined {
    const diskFirst = plan.spool !== null && plan.declared !== undefined && plan.declared > plan.memoryLimit;
    if (diskFirst && !plan.limits.takeSpool()) return undefined;
    return new FillWriter(plan, diskFirst);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.size += chunk.length;
    if (this.size > this.plan.limit) return this.giveUp(callback);
    if (this.chunks && this.keepInMemory(chunk)) return callback();
    if (!this.canSpill()) return this.giveUp(callback);
    this.spill(chunk).then(
      () => callback(),
      (error: unknown) => {
        if (!this.destroyed) this.plan.onError(error);
        this.giveUp(callback);
      },
    );
  }

  override _final(callback: (error?: Error | null) => void): void {
    const filled: Filled = this.file ? { spool: this.file, length: this.size } : { body: Buffer.concat(this.chunks!, this.size) };
    this.chunks = null;
    this.reported = true;
    Promise.resolve(this.plan.done(filled)).then(() => callback(), callback);
  }

  // Runs once, after the store (autoDestroy) or when the body failed or was given up on.
  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.chunks = null;
    this.plan.limits.letGo(this.held);
    this.held = 0;
    if (this.hasSlot) this.plan.limits.returnSpool();
    this.hasSlot = false;
    void this.file?.discard();
    if (!this.reported) {
      this.reported = true;
      void Promise.resolve(this.plan.done(null)).catch(this.plan.onError);
    }
    callback(error);
  }

  private keepInMemory(chunk: Buffer): boolean {
    if (this.diskFirst || this.size > this.plan.memoryLimit || !this.plan.limits.hold(chunk.length)) return false;
    this.held += chunk.length;
    this.chunks!.push(chunk);
    return true;
  }

  // A fill goes to disk when there is a disk tier and it holds (or gets) one of the disk fill slots.
  private canSpill(): boolean {
    if (!this.plan.spool) return false;
    if (!this.hasSlot) this.hasSlot = this.plan.limits.takeSpool();
    return this.hasSlot;
  }

  // Appends to the spool, opening it and moving what memory held into it first.
  private async spill(chunk: Buffer): Promise<void> {
    if (!this.file) {
      const file = await this.plan.spool!();
      if (this.destroyed) return file.discard();
      this.file = file;
    }
    for (const earlier of this.chunks ?? []) await this.file.write(earlier);
    this.chunks = null;
    this.plan.limits.letGo(this.held);
    this.held = 0;
    await this.file.write(chunk);
  }

  private giveUp(callback: (error?: Error | null) => void): void {
    this.destroy();
    callback();
  }
}

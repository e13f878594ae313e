// Puts what the cache phase fetched into the tiers. A whole body is stored at
// once: memory first, so requests waiting for it are released as soon as they
// can be served, then disk. A streamed body goes through a fill writer, held in
// memory while the memory tier could take it, else spooled to disk and never
// held whole (docs/edge-cache.md, "Fills").
import { Buffer } from 'node:buffer';
import { releaseBody, type StoredBody } from './disk-body.js';
import { encodeHeader } from './disk-format.js';
import type { DiskSpool, StoredFile } from './disk-spool.js';
import type { DiskTier } from './disk-tier.js';
import { FillLimits, FillWriter, type Filled } from './fill-writer.js';
import type { InvalidationLog } from './invalidation-log.js';
import type { MemoryTier } from './memory-tier.js';
import type { PurgeLog } from './purge-log.js';
import type { CacheEntry } from './types.js';

const DEFAULT_MAX_OBJECT_BYTES = 100 * 1024 * 1024;
const DEFAULT_MAX_DISK_FILLS = 64;
/** Fills in progress hold at most this share of the memory tier's size in memory, together. */
const FILL_MEMORY_SHARE = 4;
const NO_BODY = Buffer.alloc(0);

/** Whether a store put anything in a tier. */
export type StoreOutcome = 'stored' | 'not_stored';

/** One fetched response to store: the entries a body of `length` bytes makes, who learns the outcome (once), and the purge log position when its fetch began. */
export type StoreJob = {
  entriesOf: (body: StoredBody, length: number) => CacheEntry[];
  settle: (outcome: StoreOutcome) => void;
  purgesBefore: number;
};

export type CacheStorageOptions = {
  memory: MemoryTier;
  disk: DiskTier | null;
  purges: PurgeLog;
  /** Invalidations by unsafe methods: a fill one overtook is not stored. */
  invalidations: InvalidationLog;
  /** Called after each disk write, to tell the primary's DiskCacheIndex. */
  onStored: (file: string, size: number, resource: string) => void;
  onError: (error: unknown) => void;
  /** CDN_EDGE_CACHE_MAX_OBJECT_BYTES. */
  maxObjectBytes?: number;
  /** Fills writing to disk at once (default 64); a fill past it is not stored. */
  maxDiskFills?: number;
};

export class CacheStorage {
  /** The largest body stored: the max object size, within the larger tier's limit. */
  readonly limit: number;
  private readonly memory: MemoryTier;
  private readonly disk: DiskTier | null;
  private readonly fills: FillLimits;

  constructor(private readonly options: CacheStorageOptions) {
    this.memory = options.memory;
    this.disk = options.disk;
    this.limit = Math.min(options.maxObjectBytes ?? DEFAULT_MAX_OBJECT_BYTES, Math.max(this.memory.maxObjectBytes, this.disk?.maxBytes ?? 0));
    this.fills = new FillLimits(options.maxDiskFills ?? DEFAULT_MAX_DISK_FILLS, Math.floor(this.memory.maxBytes / FILL_MEMORY_SHARE));
  }

  /** Stores a response's whole body (null: none). */
  storeWhole(body: Buffer | null, job: StoreJob): Promise<void> {
    const whole = body ?? NO_BODY;
    return this.store(job.entriesOf(whole, whole.length), job.settle, job.purgesBefore);
  }

  /**
   * Stores `entries` (their body in memory, or still in its file: an object a 304 confirmed);
   * nothing when a purge or an invalidation since the fetch began covers it. Never rejects.
   */
  async store(entries: CacheEntry[], settle: (outcome: StoreOutcome) => void, purgesBefore: number): Promise<void> {
    if (this.overtaken(entries[0], purgesBefore)) return settle('not_stored');
    // A body in its file stays open until it is copied.
    const body = entries[0].body;
    if (!Buffer.isBuffer(body)) body.retain();
    try {
      await this.storeInTiers(entries, settle);
    } finally {
      releaseBody(body);
    }
  }

  /**
   * A writer storing a body as it streams (teed to a client or piped); undefined when its declared
   * `contentLength` sends it to disk and every disk fill slot of the worker is taken. `gaveUp` is
   * called when the body is not stored after all (cut short, over the limit, no room).
   */
  writer(contentLength: string | string[] | undefined, job: StoreJob, gaveUp: () => void): FillWriter | undefined {
    const disk = this.disk;
    // The header is written after the body, in room kept for the longest Content-Length it can carry.
    const spool = (): Promise<DiskSpool> => disk!.spool(encodeHeader(job.entriesOf(NO_BODY, this.limit)[0]).length);
    return FillWriter.start({
      limit: this.limit,
      memoryLimit: this.memory.maxObjectBytes,
      declared: typeof contentLength === 'string' ? Number(contentLength) : undefined,
      spool: disk && spool,
      limits: this.fills,
      done: (filled) => {
        if (filled) return this.storeFilled(filled, job);
        job.settle('not_stored');
        gaveUp();
      },
      onError: this.options.onError,
    });
  }

  private async storeInTiers(entries: CacheEntry[], settle: (outcome: StoreOutcome) => void): Promise<void> {
    let stored = false;
    for (const entry of entries) stored = this.memory.set(entry) || stored;
    if (stored) settle('stored');
    if (this.disk && entries[0].body.length <= this.disk.maxBytes) {
      try {
        for (const entry of entries) this.noteStored(await this.disk.put(entry));
        stored = true;
      } catch (error) {
        this.options.onError(error);
      }
    }
    settle(stored ? 'stored' : 'not_stored');
  }

  // A body held in memory is stored in both tiers; one spooled to disk is committed into place
  // (never read back into memory), then its Vary marker, if any, is stored in both.
  private async storeFilled(filled: Filled, job: StoreJob): Promise<void> {
    if ('body' in filled) return this.storeWhole(filled.body, job);
    const [object, ...markers] = job.entriesOf(NO_BODY, filled.length);
    if (this.overtaken(object, job.purgesBefore)) return job.settle('not_stored');
    try {
      this.noteStored(await filled.spool.commit(object));
      for (const marker of markers) {
        this.memory.set(marker);
        this.noteStored(await this.disk!.put(marker));
      }
      job.settle('stored');
    } catch (error) {
      this.options.onError(error);
      job.settle('not_stored');
    }
  }

  // A purge applied or an invalidation recorded since the fetch of `object` began may have removed what it fetched.
  private overtaken(object: CacheEntry, purgesBefore: number): boolean {
    return this.options.purges.coversSince(purgesBefore, object) || this.options.invalidations.overtook(object, object.fetchedAt);
  }

  private noteStored({ file, size, resource }: StoredFile): void {
    this.options.onStored(file, size, resource);
  }
}

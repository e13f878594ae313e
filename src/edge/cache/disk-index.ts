// The primary's view of the shared disk tier: which files exist, their sizes,
// the order they were stored in and the resource each belongs to, so the folder
// stays under CDN_EDGE_CACHE_DISK_BYTES, purges find their files without asking
// workers, and an invalidation finds its resource's files without a scan.
import { open, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { SnapshotPurge } from '../../shared/snapshot.js';
import { FILE_NAME, readTarget } from './disk-format.js';
import { TEMP_FOLDER } from './disk-tier.js';
import { compilePurge, type PurgeMatcher } from './purge.js';
import { resourceOf, type PurgeTarget } from './types.js';

/** A file's size, its purge identity once read, and its resource (resourceOf) once known. */
type Slot = { size: number; target: PurgeTarget | undefined; resource: string | undefined };

const SHARD = /^[0-9a-f]{2}$/;

export class DiskCacheIndex {
  /** File name → size and purge identity, least recently stored first. */
  private readonly files = new Map<string, Slot>();
  /** resourceOf(object) → the files of that resource's objects (queries, variants, rule-added key parts). */
  private readonly byResource = new Map<string, Set<string>>();
  private used = 0;
  private evicted = 0;
  private evicting: Promise<number> | undefined;
  /** Resolves once the resource of every file found at start is known (read from its header, in the background). */
  private resolved: Promise<void> = Promise.resolve();

  /** `dir` is the cache folder (<CDN_EDGE_DATA_DIR>/cache), `maxBytes` CDN_EDGE_CACHE_DISK_BYTES. */
  constructor(
    readonly dir: string,
    readonly maxBytes: number,
  ) {}

  get bytes(): number {
    return this.used;
  }

  get count(): number {
    return this.files.size;
  }

  /** Files removed to bring the folder under its bound since the index was made (purges are not evictions). */
  get evictions(): number {
    return this.evicted;
  }

  /**
   * Scans the folder at start (before workers write): indexes every stored object oldest first, removes
   * temp files of interrupted writes, then evicts down to the bound. The files' resources are read from
   * their headers afterwards, one file at a time in the background (`removeResources` waits for it).
   */
  async load(): Promise<void> {
    await rm(join(this.dir, TEMP_FOLDER), { recursive: true, force: true });
    const found: { file: string; size: number; mtime: number }[] = [];
    for (const shard of await this.entries(this.dir)) {
      if (!SHARD.test(shard)) continue;
      for (const name of await this.entries(join(this.dir, shard))) {
        const file = `${shard}/${name}`;
        if (!FILE_NAME.test(file)) continue;
        const info = await stat(join(this.dir, file)).catch(() => undefined);
        if (info?.isFile()) found.push({ file, size: info.size, mtime: info.mtimeMs });
      }
    }
    found.sort((a, b) => a.mtime - b.mtime);
    for (const { file, size } of found) this.record(file, size, undefined);
    await this.evict();
    this.resolved = this.resolveResources();
  }

  /**
   * Records a file a worker has just written, of `resource` (its name is checked: a worker never names a
   * path outside the folder); starts an eviction when the folder is over its bound.
   */
  noteStored(file: string, size: number, resource: string): void {
    if (!FILE_NAME.test(file) || !Number.isSafeInteger(size) || size < 0 || typeof resource !== 'string') return;
    this.record(file, size, resource);
    if (this.used > this.maxBytes) void this.evict();
  }

  /** Removes least recently stored files until the folder is under its bound; resolves with how many went (one eviction runs at a time). */
  evict(): Promise<number> {
    this.evicting ??= this.evictNow().finally(() => (this.evicting = undefined));
    return this.evicting;
  }

  /** Removes the files `purge` matches; resolves with how many went. Idempotent. */
  purge(purge: SnapshotPurge, domainApex: string): Promise<number> {
    return this.removeWhere(compilePurge(purge, domainApex));
  }

  /**
   * Removes the files whose object `matches` selects (purges: rare, and they may match on a query, so
   * every file's header is read once); resolves with how many went. Idempotent. The index is walked
   * as it is, not copied: a file removed meanwhile is skipped, one stored meanwhile visited too.
   */
  async removeWhere(matches: PurgeMatcher): Promise<number> {
    let removed = 0;
    for (const [file, slot] of this.files) {
      if (!slot.target) this.learn(file, slot, await this.readTarget(file));
      if (slot.target && matches(slot.target) && (await this.remove(file))) removed++;
    }
    return removed;
  }

  /** Removes the files of the given resources (resourceOf; invalidations), found through the index by resource; resolves with how many went. Idempotent. */
  async removeResources(resources: Iterable<string>): Promise<number> {
    await this.resolved;
    let removed = 0;
    for (const resource of resources) {
      const files = this.byResource.get(resource);
      if (!files) continue;
      for (const file of [...files]) if (await this.remove(file)) removed++;
    }
    return removed;
  }

  private record(file: string, size: number, resource: string | undefined): void {
    const old = this.files.get(file);
    if (old) {
      this.files.delete(file);
      this.used -= old.size;
    }
    // One file name is one key, so one resource: what was learnt of it stays true.
    const slot: Slot = { size, target: old?.target, resource: resource ?? old?.resource };
    this.files.set(file, slot);
    this.used += size;
    if (slot.resource !== undefined) this.indexResource(file, slot.resource);
  }

  private indexResource(file: string, resource: string): void {
    const files = this.byResource.get(resource);
    if (files) files.add(file);
    else this.byResource.set(resource, new Set([file]));
  }

  // Keeps what a file's header says of it (its purge identity and resource).
  private learn(file: string, slot: Slot, target: PurgeTarget | undefined): void {
    // A file removed (or written again) while its header was read is not this slot's any more.
    if (!target || this.files.get(file) !== slot) return;
    slot.target = target;
    if (slot.resource !== undefined) return;
    slot.resource = resourceOf(target);
    this.indexResource(file, slot.resource);
  }

  // Reads the header of each file found at start whose resource is unknown, one at a time.
  private async resolveResources(): Promise<void> {
    for (const [file, slot] of this.files) if (slot.resource === undefined) this.learn(file, slot, await this.readTarget(file).catch(() => undefined));
  }

  private async evictNow(): Promise<number> {
    let removed = 0;
    while (this.used > this.maxBytes) {
      const oldest = this.files.keys().next();
      if (oldest.done) break;
      if (await this.remove(oldest.value)) removed++;
    }
    this.evicted += removed;
    return removed;
  }

  private async remove(file: string): Promise<boolean> {
    const slot = this.files.get(file);
    if (!slot) return false;
    this.files.delete(file);
    this.used -= slot.size;
    if (slot.resource !== undefined) {
      const files = this.byResource.get(slot.resource);
      if (files?.delete(file) && files.size === 0) this.byResource.delete(slot.resource);
    }
    await rm(join(this.dir, file), { force: true });
    return true;
  }

  private async readTarget(file: string): Promise<PurgeTarget | undefined> {
    const handle = await open(join(this.dir, file), 'r').catch(() => undefined);
    if (!handle) return undefined;
    try {
      return await readTarget(handle);
    } finally {
      await handle.close();
    }
  }

  private async entries(dir: string): Promise<string[]> {
    return readdir(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return [];
      throw error;
    });
  }
}

// The primary's view of the shared disk tier: which files exist, their sizes
// and the order they were stored in, so the folder stays under
// CDN_EDGE_CACHE_DISK_BYTES and purges find their files without asking workers.
import { open, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { SnapshotPurge } from '../../shared/snapshot.js';
import { FILE_NAME, readTarget } from './disk-format.js';
import { TEMP_FOLDER } from './disk-tier.js';
import { compilePurge, type PurgeMatcher } from './purge.js';
import type { PurgeTarget } from './types.js';

type Slot = { size: number; target: PurgeTarget | undefined };

const SHARD = /^[0-9a-f]{2}$/;

export class DiskCacheIndex {
  /** File name → size and purge identity, least recently stored first. */
  private readonly files = new Map<string, Slot>();
  private used = 0;
  private evicting: Promise<number> | undefined;

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

  /** Scans the folder at start (before workers write): indexes every stored object oldest first, removes temp files of interrupted writes, then evicts down to the bound. */
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
    for (const { file, size } of found) this.record(file, size);
    await this.evict();
  }

  /** Records a file a worker has just written (its name is checked: a worker never names a path outside the folder); starts an eviction when the folder is over its bound. */
  noteStored(file: string, size: number): void {
    if (!FILE_NAME.test(file) || !Number.isSafeInteger(size) || size < 0) return;
    this.record(file, size);
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

  /** Removes the files whose object `matches` selects (purges, invalidations); resolves with how many went. Idempotent. */
  async removeWhere(matches: PurgeMatcher): Promise<number> {
    let removed = 0;
    for (const [file, slot] of [...this.files]) {
      slot.target ??= await this.readTarget(file);
      if (slot.target && matches(slot.target) && (await this.remove(file))) removed++;
    }
    return removed;
  }

  private record(file: string, size: number): void {
    const old = this.files.get(file);
    if (old) {
      this.files.delete(file);
      this.used -= old.size;
    }
    this.files.set(file, { size, target: undefined });
    this.used += size;
  }

  private async evictNow(): Promise<number> {
    let removed = 0;
    while (this.used > this.maxBytes) {
      const oldest = this.files.keys().next();
      if (oldest.done) break;
      if (await this.remove(oldest.value)) removed++;
    }
    return removed;
  }

  private async remove(file: string): Promise<boolean> {
    const slot = this.files.get(file);
    if (!slot) return false;
    this.files.delete(file);
    this.used -= slot.size;
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

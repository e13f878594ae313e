// The worker side of the disk tier every worker of an edge shares: objects as
// files under <CDN_EDGE_DATA_DIR>/cache, written whole to a temp file and renamed
// into place so a reader never sees half an object. The primary's
// DiskCacheIndex (disk-index.ts) bounds the folder; workers only read and write.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeEntry, encodeEntry, fileNameOf } from './disk-format.js';
import type { CacheEntry } from './types.js';

/** The folder of unfinished writes inside the cache folder. */
export const TEMP_FOLDER = 'tmp';

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

export class DiskTier {
  private sequence = 0;
  private readonly tag = `${process.pid}-${randomBytes(4).toString('hex')}`;

  /** `dir` is the cache folder itself (<CDN_EDGE_DATA_DIR>/cache); `maxBytes` the tier's bound (CDN_EDGE_CACHE_DISK_BYTES), which caps one object too. */
  constructor(
    readonly dir: string,
    readonly maxBytes: number,
  ) {}

  /** The entry stored under `key`, read without blocking the event loop; undefined when absent or unreadable (an unreadable file is removed). */
  async get(key: string): Promise<CacheEntry | undefined> {
    const file = join(this.dir, fileNameOf(key));
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    const entry = decodeEntry(bytes);
    if (!entry) {
      await rm(file, { force: true });
      return undefined;
    }
    // Two keys with one SHA-256 do not happen; a mismatch means a foreign file.
    return entry.key === key ? entry : undefined;
  }

  /** Writes `entry` atomically (temp file, then rename); resolves with its file name (relative to the folder) and size for the primary's index. */
  async put(entry: CacheEntry): Promise<{ file: string; size: number }> {
    const file = fileNameOf(entry.key);
    const bytes = encodeEntry(entry);
    const temp = join(this.dir, TEMP_FOLDER, `${this.tag}-${++this.sequence}`);
    await mkdir(join(this.dir, TEMP_FOLDER), { recursive: true });
    await mkdir(join(this.dir, file.slice(0, 2)), { recursive: true });
    try {
      await writeFile(temp, bytes);
      await rename(temp, join(this.dir, file));
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    return { file, size: bytes.length };
  }

  /** Removes the object under `key` (absent is fine). */
  async delete(key: string): Promise<void> {
    await rm(join(this.dir, fileNameOf(key)), { force: true });
  }
}

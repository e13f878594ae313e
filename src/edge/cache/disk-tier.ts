// The worker side of the disk tier every worker of an edge shares: objects as
// files under <CDN_EDGE_DATA_DIR>/cache, written to a temp file and renamed into
// place so a reader never sees half an object. Large bodies are never held whole:
// a fill streams them into a spool (disk-spool.ts), and a read leaves them in
// their file (disk-body.ts). The primary's DiskCacheIndex (disk-index.ts) bounds
// the folder; workers only read and write.
import { Buffer } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { DiskBody } from './disk-body.js';
import { encodeEntry, encodeHeader, entryOf, fileNameOf, isCurrent, readHeader } from './disk-format.js';
import { DiskSpool, type StoredFile } from './disk-spool.js';
import { resourceOf, type CacheEntry } from './types.js';

/** The folder of unfinished writes inside the cache folder. */
export const TEMP_FOLDER = 'tmp';

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

async function readExactly(handle: FileHandle, length: number, position: number): Promise<Buffer | undefined> {
  const bytes = Buffer.allocUnsafe(length);
  let read = 0;
  while (read < length) {
    const { bytesRead } = await handle.read(bytes, read, length - read, position + read);
    if (bytesRead === 0) return undefined;
    read += bytesRead;
  }
  return bytes;
}

export class DiskTier {
  private sequence = 0;
  private readonly tag = `${process.pid}-${randomBytes(4).toString('hex')}`;

  /** `dir` is the cache folder itself (<CDN_EDGE_DATA_DIR>/cache); `maxBytes` the tier's bound (CDN_EDGE_CACHE_DISK_BYTES), which caps one object too. */
  constructor(
    readonly dir: string,
    readonly maxBytes: number,
  ) {}

  /**
   * The entry stored under `key`, read without blocking the event loop; undefined when absent or
   * unreadable (an unreadable file is removed). A body up to `wholeUpTo` bytes is read into memory;
   * a larger one stays in its file (a DiskBody the caller releases).
   */
  async get(key: string, wholeUpTo = Infinity): Promise<CacheEntry | undefined> {
    const file = join(this.dir, fileNameOf(key));
    let handle: FileHandle | undefined;
    try {
      handle = await open(file, 'r');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    try {
      const read = await readHeader(handle);
      const length = (await handle.stat()).size - (read?.bodyOffset ?? 0);
      // An unreadable file, or one of an older format (a miss), is removed.
      if (!read || length < 0 || !isCurrent(read.header)) {
        await rm(file, { force: true });
        return undefined;
      }
      // Two keys with one SHA-256 do not happen; a mismatch means a foreign file.
      if (read.header.key !== key) return undefined;
      if (length <= wholeUpTo) {
        const body = await readExactly(handle, length, read.bodyOffset);
        return body && entryOf(read.header, body);
      }
      const body = new DiskBody(handle, read.bodyOffset, length);
      handle = undefined;
      return entryOf(read.header, body);
    } finally {
      await handle?.close();
    }
  }

  /** Writes `entry` atomically (temp file, then rename); resolves with its file name (relative to the folder) and size for the primary's index. */
  async put(entry: CacheEntry): Promise<StoredFile> {
    if (!Buffer.isBuffer(entry.body)) return this.copy(entry, entry.body);
    const file = fileNameOf(entry.key);
    const bytes = encodeEntry({ ...entry, body: entry.body });
    const temp = await this.tempPath();
    await mkdir(join(this.dir, file.slice(0, 2)), { recursive: true });
    try {
      await writeFile(temp, bytes);
      await rename(temp, join(this.dir, file));
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    return { file, size: bytes.length, resource: resourceOf(entry) };
  }

  /** A temp file for a body streamed in as it arrives, with `room` bytes kept for its header (see DiskSpool). */
  async spool(room: number): Promise<DiskSpool> {
    const temp = await this.tempPath();
    return new DiskSpool(await open(temp, 'wx'), temp, this.dir, room);
  }

  /** Removes the object under `key` (absent is fine). */
  async delete(key: string): Promise<void> {
    await rm(join(this.dir, fileNameOf(key)), { force: true });
  }

  // An object whose body is in another file (an object read from disk, stored again with new
  // headers after a 304) is copied through a spool, never read whole. The caller keeps `body` open.
  private async copy(entry: CacheEntry, body: DiskBody): Promise<StoredFile> {
    const spool = await this.spool(encodeHeader(entry).length);
    try {
      for await (const chunk of body.stream()) await spool.write(chunk as Buffer);
      return await spool.commit(entry);
    } catch (error) {
      await spool.discard();
      throw error;
    }
  }

  private async tempPath(): Promise<string> {
    await mkdir(join(this.dir, TEMP_FOLDER), { recursive: true });
    return join(this.dir, TEMP_FOLDER, `${this.tag}-${++this.sequence}`);
  }
}

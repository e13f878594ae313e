// A streamed write into the disk tier, as nginx's proxy_cache writes a temp file:
// the body is appended to a file under cache/tmp as it arrives, after room kept
// for the header; `commit` writes the header into that room and renames the file
// into place, `discard` removes it. A reader never sees half an object.
import type { FileHandle } from 'node:fs/promises';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeHeader, fileNameOf } from './disk-format.js';
import { resourceOf, type CacheEntry } from './types.js';

/** Where a stored object went, for the primary's index: its file name relative to the cache folder, its size and its resource (resourceOf). */
export type StoredFile = { file: string; size: number; resource: string };

async function writeAll(handle: FileHandle, bytes: Buffer, position: number): Promise<void> {
  let written = 0;
  while (written < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, written, bytes.length - written, position + written);
    written += bytesWritten;
  }
}

export class DiskSpool {
  private written = 0;
  private state: 'open' | 'closed' | 'committed' = 'open';

  /** `temp` is the open file's path, `dir` the cache folder, `room` the bytes kept for the header. */
  constructor(
    private readonly handle: FileHandle,
    private readonly temp: string,
    private readonly dir: string,
    readonly room: number,
  ) {}

  /** Appends `chunk` to the body; one write at a time. */
  async write(chunk: Buffer): Promise<void> {
    await writeAll(this.handle, chunk, this.room + this.written);
    this.written += chunk.length;
  }

  /** Writes the header of `entry` (whose body is what was written) into the room kept, and renames the file into place. */
  async commit(entry: CacheEntry): Promise<StoredFile> {
    await writeAll(this.handle, encodeHeader(entry, this.room), 0);
    await this.close();
    const file = fileNameOf(entry.key);
    await mkdir(join(this.dir, file.slice(0, 2)), { recursive: true });
    await rename(this.temp, join(this.dir, file));
    this.state = 'committed';
    return { file, size: this.room + this.written, resource: resourceOf(entry) };
  }

  /** Removes the temp file (nothing once committed); never fails. */
  async discard(): Promise<void> {
    if (this.state === 'committed') return;
    await this.close().catch(() => undefined);
    await rm(this.temp, { force: true }).catch(() => undefined);
  }

  private async close(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'closed';
    await this.handle.close();
  }
}

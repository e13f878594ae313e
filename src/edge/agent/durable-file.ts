import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/**
 * Replaces `target` atomically and durably: written to a temporary file (mode 0600) beside it,
 * synced, renamed over it, and the folder synced, so a crash leaves the old file or the new one,
 * never a mix, and the rename survives a power cut. The folder is made (mode 0700) when missing.
 * `bytes` may be chunks, written one after the other in one call.
 */
export async function replaceFileDurably(target: string, bytes: string | Buffer | readonly Buffer[]): Promise<void> {
  const folder = path.dirname(target);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const temporary = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const file = await open(temporary, 'w', 0o600);
    try {
      if (typeof bytes === 'string' || Buffer.isBuffer(bytes)) await file.writeFile(bytes);
      else await writeChunks(file, bytes);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, target);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  await syncFolder(folder);
}

async function writeChunks(file: FileHandle, chunks: readonly Buffer[]): Promise<void> {
  const expected = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  const { bytesWritten } = await file.writev(chunks as Buffer[]);
  if (bytesWritten !== expected) throw new Error(`wrote ${bytesWritten} of ${expected} bytes`);
}

// The rename is durable only once the directory entry is on disk.
async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

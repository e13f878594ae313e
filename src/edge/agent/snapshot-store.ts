// The last-known-good snapshot on disk, so an edge restarted while the core is
// down serves its last config. The file is the config answer the core sent
// (`{"data":{"version","checksum","created_at","snapshot":<bytes>}}`, the snapshot
// bytes verbatim), so loading it re-runs every check a pulled answer passes.
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { oneLine } from './core-client.js';
import { ANSWER_ENVELOPE_BYTES, checkConfigAnswer, type PulledSnapshot } from './snapshot-check.js';

export type LoadedSnapshot = { kind: 'loaded'; pulled: PulledSnapshot } | { kind: 'missing' } | { kind: 'corrupt'; reason: string };

/** Path of the last-known-good file under the edge data directory. */
export function lastKnownGoodPath(dataDir: string): string {
  return path.join(dataDir, 'snapshot', 'last-known-good.json');
}

/** The file's bytes: the core's answer envelope around the snapshot's exact bytes. */
function fileBytes(pulled: PulledSnapshot): Buffer {
  const head = `{"data":{"version":${pulled.version},"checksum":"${pulled.checksum}","created_at":${pulled.createdAt ?? 'null'},"snapshot":`;
  return Buffer.concat([Buffer.from(head), pulled.bytes, Buffer.from('}}')]);
}

/** Replaces the last-known-good file atomically: a crash leaves the old file or the new one, never a mix. */
export async function saveLastKnownGood(dataDir: string, pulled: PulledSnapshot): Promise<void> {
  const target = lastKnownGoodPath(dataDir);
  const folder = path.dirname(target);
  await mkdir(folder, { recursive: true });
  const temporary = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const file = await open(temporary, 'w', 0o600);
    try {
      await file.writeFile(fileBytes(pulled));
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

/** The rename is durable only once the directory entry is on disk. */
async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Reads and re-checks the last-known-good file; a missing or corrupt file is reported, never thrown. */
export async function loadLastKnownGood(dataDir: string, maxBytes: number): Promise<LoadedSnapshot> {
  const file = lastKnownGoodPath(dataDir);
  let bytes: Buffer;
  try {
    const { size } = await stat(file);
    if (size > maxBytes + ANSWER_ENVELOPE_BYTES) return { kind: 'corrupt', reason: `${file} is ${size} bytes, over CDN_EDGE_CONFIG_MAX_BYTES (${maxBytes})` };
    bytes = await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    return { kind: 'corrupt', reason: oneLine(`${file} is unreadable: ${(error as Error).message}`) };
  }
  const check = checkConfigAnswer(bytes, maxBytes);
  if (check.kind === 'snapshot') return { kind: 'loaded', pulled: check.pulled };
  return { kind: 'corrupt', reason: oneLine(`${file}: ${check.kind === 'invalid' ? check.reason : 'holds no snapshot'}`) };
}

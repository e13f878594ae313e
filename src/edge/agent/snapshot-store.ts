// The last-known-good snapshot on disk, so an edge restarted while the core is
// down serves its last config. The file is the config answer the core sent
// (`{"data":{"version","checksum","created_at","snapshot":<bytes>}}`, the snapshot
// bytes verbatim), so loading it re-runs every check a pulled answer passes.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { oneLine } from './core-client.js';
import { replaceFileDurably } from './durable-file.js';
import { ANSWER_ENVELOPE_BYTES, checkConfigAnswer, type PulledSnapshot } from './snapshot-check.js';

export type LoadedSnapshot = { kind: 'loaded'; pulled: PulledSnapshot } | { kind: 'missing' } | { kind: 'corrupt'; reason: string };

/** Path of the last-known-good file under the edge data directory. */
export function lastKnownGoodPath(dataDir: string): string {
  return path.join(dataDir, 'snapshot', 'last-known-good.json');
}

/** The file's bytes, in chunks: the core's answer envelope around the snapshot's exact bytes. */
function fileChunks(pulled: PulledSnapshot): Buffer[] {
  const head = `{"data":{"version":${pulled.version},"checksum":"${pulled.checksum}","created_at":${pulled.createdAt ?? 'null'},"snapshot":`;
  return [Buffer.from(head), ...pulled.chunks, Buffer.from('}}')];
}

/** Replaces the last-known-good file atomically: a crash leaves the old file or the new one, never a mix. */
export async function saveLastKnownGood(dataDir: string, pulled: PulledSnapshot): Promise<void> {
  await replaceFileDurably(lastKnownGoodPath(dataDir), fileChunks(pulled));
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

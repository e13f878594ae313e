// What a stopping edge could not deliver, kept on disk until it starts again, so
// events of a restart while the core is down are neither lost nor counted twice.
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Batch } from './telemetry-shipper.js';

export type Spool = { usage: Batch<unknown>[]; security: Batch<unknown>[] };

function spoolFile(dataDir: string): string {
  return path.join(dataDir, 'telemetry-spool.json');
}

function batches(value: unknown): Batch<unknown>[] {
  if (!Array.isArray(value)) return [];
  return value.filter((batch): batch is Batch<unknown> => typeof batch === 'object' && batch !== null && Array.isArray(batch.items) && (batch.key === undefined || typeof batch.key === 'string'));
}

/** Writes the spool atomically (nothing when empty). */
export async function writeSpool(dataDir: string, spool: Spool): Promise<void> {
  if (!spool.usage.length && !spool.security.length) return;
  await mkdir(dataDir, { recursive: true });
  const temporary = `${spoolFile(dataDir)}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(spool));
  await rename(temporary, spoolFile(dataDir));
}

/** Reads and removes the spool; a missing or unreadable one is empty (an unreadable one is reported). */
export async function takeSpool(dataDir: string): Promise<{ spool: Spool; problem?: string }> {
  const text = await readFile(spoolFile(dataDir), 'utf8').catch(() => undefined);
  if (text === undefined) return { spool: { usage: [], security: [] } };
  await rm(spoolFile(dataDir), { force: true });
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    return { spool: { usage: batches(parsed.usage), security: batches(parsed.security) } };
  } catch (error) {
    return { spool: { usage: [], security: [] }, problem: `telemetry spool unreadable: ${(error as Error).message}` };
  }
}

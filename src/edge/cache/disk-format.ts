// The file format of the disk tier: "CDNC", a 32-bit big-endian header length,
// the JSON header, then the body. One file per object, named by the SHA-256 of
// its key under a two-hex-digit folder.
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import type { CacheEntry, PurgeTarget } from './types.js';

const MAGIC = Buffer.from('CDNC');
const PREFIX = 8;
/** A header above this is not ours (keys are bounded, headers are origin headers). */
const MAX_HEADER_BYTES = 1024 * 1024;

/** A stored object's name relative to the cache folder: `ab/ab12…` (64 hex digits). */
export const FILE_NAME = /^[0-9a-f]{2}\/[0-9a-f]{64}$/;

type Header = {
  key: string;
  domain_id: string;
  host: string;
  path: string;
  query: string;
  status: number;
  headers: CacheEntry['headers'];
  stored_at: number;
  fresh_until: number;
  swr_until: number;
  sie_until: number;
  vary: string[];
  marker: boolean;
};

/** The file name (relative to the cache folder) of the object under `key`. */
export function fileNameOf(key: string): string {
  const hash = createHash('sha256').update(key).digest('hex');
  return `${hash.slice(0, 2)}/${hash}`;
}

/** The bytes of a file holding `entry`. */
export function encodeEntry(entry: CacheEntry): Buffer {
  const header: Header = {
    key: entry.key,
    domain_id: entry.domainId,
    host: entry.host,
    path: entry.path,
    query: entry.query,
    status: entry.status,
    headers: entry.headers,
    stored_at: entry.storedAt,
    fresh_until: entry.freshUntil,
    swr_until: entry.swrUntil,
    sie_until: entry.sieUntil,
    vary: [...entry.vary],
    marker: entry.marker,
  };
  const json = Buffer.from(JSON.stringify(header));
  const prefix = Buffer.alloc(PREFIX);
  MAGIC.copy(prefix);
  prefix.writeUInt32BE(json.length, 4);
  return Buffer.concat([prefix, json, entry.body]);
}

function headerLength(prefix: Buffer): number | undefined {
  if (prefix.length < PREFIX || !prefix.subarray(0, 4).equals(MAGIC)) return undefined;
  const length = prefix.readUInt32BE(4);
  return length <= MAX_HEADER_BYTES ? length : undefined;
}

function parseHeader(json: Buffer): Header | undefined {
  try {
    const header = JSON.parse(json.toString()) as Header;
    if (typeof header.key !== 'string' || typeof header.domain_id !== 'string' || typeof header.status !== 'number' || !Array.isArray(header.vary)) return undefined;
    return header;
  } catch {
    return undefined;
  }
}

/** The entry a whole file holds; undefined when the bytes are not a stored object. */
export function decodeEntry(file: Buffer): CacheEntry | undefined {
  const length = headerLength(file);
  if (length === undefined || file.length < PREFIX + length) return undefined;
  const header = parseHeader(file.subarray(PREFIX, PREFIX + length));
  if (!header) return undefined;
  return {
    key: header.key,
    domainId: header.domain_id,
    host: header.host,
    path: header.path,
    query: header.query,
    status: header.status,
    headers: header.headers,
    body: file.subarray(PREFIX + length),
    storedAt: header.stored_at,
    freshUntil: header.fresh_until,
    swrUntil: header.swr_until,
    sieUntil: header.sie_until,
    vary: header.vary,
    marker: header.marker === true,
  };
}

/** The purge identity of an open file, read from its header only; undefined when it is not a stored object. */
export async function readTarget(handle: FileHandle): Promise<PurgeTarget | undefined> {
  const prefix = Buffer.alloc(PREFIX);
  const { bytesRead } = await handle.read(prefix, 0, PREFIX, 0);
  const length = headerLength(prefix.subarray(0, bytesRead));
  if (length === undefined) return undefined;
  const json = Buffer.alloc(length);
  const read = await handle.read(json, 0, length, PREFIX);
  if (read.bytesRead < length) return undefined;
  const header = parseHeader(json);
  return header && { domainId: header.domain_id, host: header.host, path: header.path, query: header.query };
}

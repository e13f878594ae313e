// The file format of the disk tier: "CDNC", a 32-bit big-endian header length,
// the JSON header (padded with spaces when it was written after the body), then
// the body. One file per object, named by the SHA-256 of its key under a
// two-hex-digit folder. The header's `format` says which fields it has: a file
// of an older format is not served (a miss; the worker that reads it removes it),
// but its purge identity is still read, so purges and sweeps find it.
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import type { StoredBody } from './disk-body.js';
import type { CacheEntry, PurgeTarget } from './types.js';

const MAGIC = Buffer.from('CDNC');
const PREFIX = 8;
/** A header above this is not ours (keys are bounded, headers are origin headers). */
const MAX_HEADER_BYTES = 1024 * 1024;
/** The header format written now: 2 added `format`, `fetched_at` and `origin_freshness`. */
const FORMAT = 2;

/** A stored object's name relative to the cache folder: `ab/ab12…` (64 hex digits). */
export const FILE_NAME = /^[0-9a-f]{2}\/[0-9a-f]{64}$/;

type Header = {
  format?: number;
  key: string;
  domain_id: string;
  host: string;
  path: string;
  query: string;
  status: number;
  headers: CacheEntry['headers'];
  origin_freshness: CacheEntry['originFreshness'];
  stored_at: number;
  fetched_at: number;
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

/** The JSON header describing `entry` (everything but its body). */
function headerOf(entry: CacheEntry): Header {
  return {
    format: FORMAT,
    key: entry.key,
    domain_id: entry.domainId,
    host: entry.host,
    path: entry.path,
    query: entry.query,
    status: entry.status,
    headers: entry.headers,
    origin_freshness: entry.originFreshness,
    stored_at: entry.storedAt,
    fetched_at: entry.fetchedAt,
    fresh_until: entry.freshUntil,
    swr_until: entry.swrUntil,
    sie_until: entry.sieUntil,
    vary: [...entry.vary],
    marker: entry.marker,
  };
}

/**
 * The bytes of a file holding `entry` up to its body: the magic, the header length and the JSON
 * header. With `room`, the header is padded with spaces (which JSON allows) to exactly `room`
 * bytes in all, so a streamed fill can write its body first and its header last, in the room it
 * kept; a header that does not fit is an error.
 */
export function encodeHeader(entry: CacheEntry, room?: number): Buffer {
  const json = Buffer.from(JSON.stringify(headerOf(entry)));
  const length = room === undefined ? json.length : room - PREFIX;
  if (json.length > length) throw new Error(`the cache header of ${entry.key} needs ${json.length} bytes, ${length} were kept`);
  const bytes = Buffer.alloc(PREFIX + length, ' ');
  MAGIC.copy(bytes);
  bytes.writeUInt32BE(length, 4);
  json.copy(bytes, PREFIX);
  return bytes;
}

/** The bytes of a file holding `entry`, whose body is in memory. */
export function encodeEntry(entry: CacheEntry & { body: Buffer }): Buffer {
  return Buffer.concat([encodeHeader(entry), entry.body]);
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

/** A stored object's header as read from its file, and where its body starts. */
export type FileHeader = { header: Header; bodyOffset: number };

/** The header of an open file, read without its body; undefined when it is not a stored object. */
export async function readHeader(handle: FileHandle): Promise<FileHeader | undefined> {
  const prefix = Buffer.alloc(PREFIX);
  const { bytesRead } = await handle.read(prefix, 0, PREFIX, 0);
  const length = headerLength(prefix.subarray(0, bytesRead));
  if (length === undefined) return undefined;
  const json = Buffer.alloc(length);
  const read = await handle.read(json, 0, length, PREFIX);
  if (read.bytesRead < length) return undefined;
  const header = parseHeader(json);
  return header && { header, bodyOffset: PREFIX + length };
}

/** True when a file's header has every field of the current format (an older file is not served). */
export function isCurrent(header: Header): boolean {
  return header.format === FORMAT && typeof header.fetched_at === 'number' && typeof header.origin_freshness === 'object' && header.origin_freshness !== null;
}

/** The entry a file's header (of the current format: isCurrent) and body make. */
export function entryOf(header: Header, body: StoredBody): CacheEntry {
  return {
    key: header.key,
    domainId: header.domain_id,
    host: header.host,
    path: header.path,
    query: header.query,
    status: header.status,
    headers: header.headers,
    originFreshness: header.origin_freshness,
    body,
    storedAt: header.stored_at,
    fetchedAt: header.fetched_at,
    freshUntil: header.fresh_until,
    swrUntil: header.swr_until,
    sieUntil: header.sie_until,
    vary: header.vary,
    marker: header.marker === true,
  };
}

/** The purge identity of an open file, read from its header only; undefined when it is not a stored object. */
export async function readTarget(handle: FileHandle): Promise<PurgeTarget | undefined> {
  const read = await readHeader(handle);
  if (!read) return undefined;
  const { header } = read;
  return { domainId: header.domain_id, host: header.host, path: header.path, query: header.query };
}

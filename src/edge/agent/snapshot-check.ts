// Everything a pulled config answer must pass before an edge activates it
// (docs/edge-protocol.md "Config pull"): size, checksum over the exact bytes,
// schema version, the snapshot JSON Schema, and compiling for serving.
import { createHash } from 'node:crypto';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { compileActiveConfig } from '../config/active-config.js';
import { SNAPSHOT_SCHEMA_VERSION, type ConfigSnapshot } from '../../shared/snapshot.js';
import { snapshotValidator } from '../../shared/snapshot-schema.js';
import { oneLine } from './core-client.js';

/** A snapshot that passed every check; `bytes` are the snapshot value's exact bytes, which `checksum` covers. */
export type PulledSnapshot = { version: number; checksum: string; createdAt: number | null; snapshot: ConfigSnapshot; bytes: Buffer };

export type ConfigAnswerCheck =
  | { kind: 'snapshot'; pulled: PulledSnapshot }
  | { kind: 'not_modified'; version: number; checksum: string | undefined }
  | { kind: 'none' }
  | { kind: 'invalid'; reason: string; version?: number; checksum?: string };

/** Room for the envelope around the snapshot: `{"data":{"version":N,"checksum":"…","created_at":T,"snapshot":` … `}}`. */
export const ANSWER_ENVELOPE_BYTES = 1024;
const SNAPSHOT_KEY = Buffer.from('"snapshot":');
const CHECKSUM = /^[0-9a-f]{64}$/;
const MAX_VERSION = 2147483647;

let validator: ValidateFunction | undefined;

/** Checks a decompressed `GET /api/v1/edge/config` answer body; never throws. */
export function checkConfigAnswer(body: Buffer, maxBytes: number): ConfigAnswerCheck {
  if (body.length > maxBytes + ANSWER_ENVELOPE_BYTES) {
    return { kind: 'invalid', reason: `config answer of ${body.length} bytes exceeds CDN_EDGE_CONFIG_MAX_BYTES (${maxBytes})` };
  }
  const keyAt = body.indexOf(SNAPSHOT_KEY);
  if (keyAt === -1) return checkAnswerWithoutSnapshot(body);
  // Only the envelope is parsed here; the snapshot bytes are parsed once, after their checksum.
  const start = keyAt + SNAPSHOT_KEY.length;
  const envelope = parseJson(Buffer.concat([body.subarray(0, start), Buffer.from('null}}')]));
  const data = dataOf(envelope);
  if (!data) return { kind: 'invalid', reason: 'config answer is not {"data": {...}} JSON' };
  if (body.length < start + 2 || body.subarray(body.length - 2).toString() !== '}}') return { kind: 'invalid', reason: 'config answer does not end with the snapshot and }}' };
  const version = data.version;
  const checksum = data.checksum;
  if (!isVersion(version)) return { kind: 'invalid', reason: 'config answer has no integer version' };
  if (typeof checksum !== 'string' || !CHECKSUM.test(checksum)) return { kind: 'invalid', reason: 'config answer has no 64-hex-digit checksum', version };
  const createdAt = typeof data.created_at === 'number' && Number.isFinite(data.created_at) ? data.created_at : null;
  const check = checkSnapshotBytes(body.subarray(start, body.length - 2), { version, checksum, createdAt }, maxBytes);
  return 'reason' in check ? { kind: 'invalid', reason: check.reason, version, checksum } : { kind: 'snapshot', pulled: check };
}

/** The version and checksum a config answer announces before its snapshot, read from its first bytes (an answer cut off for its size). */
export function announcedSnapshot(head: Buffer): { version: number; checksum: string } | undefined {
  const keyAt = head.indexOf(SNAPSHOT_KEY);
  if (keyAt === -1) return undefined;
  const data = dataOf(parseJson(Buffer.concat([head.subarray(0, keyAt + SNAPSHOT_KEY.length), Buffer.from('null}}')])));
  return data && isVersion(data.version) && typeof data.checksum === 'string' && CHECKSUM.test(data.checksum) ? { version: data.version, checksum: data.checksum } : undefined;
}

/** Checks snapshot bytes against their announced checksum, then size, schema and compilation; never throws. */
export function checkSnapshotBytes(bytes: Buffer, meta: { version: number; checksum: string; createdAt: number | null }, maxBytes: number): PulledSnapshot | { reason: string } {
  if (bytes.length > maxBytes) return { reason: `snapshot of ${bytes.length} bytes exceeds CDN_EDGE_CONFIG_MAX_BYTES (${maxBytes})` };
  if (createHash('sha256').update(bytes).digest('hex') !== meta.checksum) return { reason: 'checksum mismatch' };
  const snapshot = parseJson(bytes);
  if (!isObject(snapshot)) return { reason: 'snapshot is not a JSON object' };
  if (snapshot.schema_version !== SNAPSHOT_SCHEMA_VERSION) {
    return { reason: `unsupported schema_version ${oneLine(JSON.stringify(snapshot.schema_version) ?? 'missing', 40)} (this edge reads ${SNAPSHOT_SCHEMA_VERSION})` };
  }
  validator ??= snapshotValidator();
  if (!validator(snapshot)) {
    const error = validator.errors?.[0];
    return { reason: oneLine(`schema: ${error?.instancePath || '/'} ${error?.message ?? 'is invalid'}`) };
  }
  try {
    compileActiveConfig(snapshot as ConfigSnapshot, meta.version, meta.checksum);
  } catch (error) {
    return { reason: oneLine(`snapshot does not compile: ${(error as Error).message}`) };
  }
  return { version: meta.version, checksum: meta.checksum, createdAt: meta.createdAt, snapshot: snapshot as ConfigSnapshot, bytes };
}

function checkAnswerWithoutSnapshot(body: Buffer): ConfigAnswerCheck {
  const data = dataOf(parseJson(body));
  if (!data) return { kind: 'invalid', reason: 'config answer is not {"data": {...}} JSON' };
  if (data.version === null) return { kind: 'none' };
  if (data.not_modified === true && isVersion(data.version)) {
    return { kind: 'not_modified', version: data.version, checksum: typeof data.checksum === 'string' && CHECKSUM.test(data.checksum) ? data.checksum : undefined };
  }
  return { kind: 'invalid', reason: 'config answer carries neither a snapshot nor not_modified' };
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}

function dataOf(parsed: unknown): Record<string, unknown> | undefined {
  return isObject(parsed) && isObject(parsed.data) ? parsed.data : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isVersion(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= MAX_VERSION;
}

// Everything a pulled config answer must pass before an edge activates it
// (docs/edge-protocol.md "Config pull"): size, checksum over the exact bytes,
// schema version, the snapshot JSON Schema, and compiling for serving.
import { createHash } from 'node:crypto';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { compileActiveConfig, compileDomain, type DomainStep, type SnapshotChange } from '../config/active-config.js';
import { SNAPSHOT_SCHEMA_VERSION, type ConfigSnapshot, type SnapshotDomain } from '../../shared/snapshot.js';
import { snapshotChunks, type AppliedDelta, type DomainSource } from '../../shared/snapshot-delta.js';
import { snapshotValidators, type SnapshotValidators } from '../../shared/snapshot-schema.js';
import { oneLine } from './core-client.js';

/**
 * A snapshot that passed every check. Its exact bytes, which `checksum` covers, are `chunks` one
 * after the other (`size` in all): one buffer when downloaded, the views of the active snapshot
 * and of the delta when rebuilt from one (never joined on the way to serving it). `change` says how
 * it differs from the snapshot it was rebuilt from, when a delta brought it.
 */
export type PulledSnapshot = { version: number; checksum: string; createdAt: number | null; snapshot: ConfigSnapshot; chunks: readonly Buffer[]; size: number; change?: SnapshotChange };
type SnapshotMeta = { version: number; checksum: string; createdAt: number | null };

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

let validators: SnapshotValidators | undefined;

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

/** A snapshot's bytes in one buffer (joined only when it was rebuilt from a delta). */
export function snapshotBytes(pulled: PulledSnapshot): Buffer {
  return pulled.chunks.length === 1 ? pulled.chunks[0] : Buffer.concat(pulled.chunks, pulled.size);
}

/** Checks snapshot bytes against their announced checksum, then size, schema and compilation; never throws. */
export function checkSnapshotBytes(bytes: Buffer, meta: SnapshotMeta, maxBytes: number): PulledSnapshot | { reason: string } {
  const refusal = checkBytes([bytes], bytes.length, meta, maxBytes);
  if (refusal) return refusal;
  const snapshot = parseJson(bytes);
  if (!isObject(snapshot)) return { reason: 'snapshot is not a JSON object' };
  const invalid = schemaVersionRefusal(snapshot) ?? schemaRefusal((validators ??= snapshotValidators()).snapshot, snapshot, '');
  if (invalid) return invalid;
  try {
    compileActiveConfig(snapshot as ConfigSnapshot, meta.version, meta.checksum);
  } catch (error) {
    return { reason: oneLine(`snapshot does not compile: ${(error as Error).message}`) };
  }
  return { ...meta, snapshot: snapshot as ConfigSnapshot, chunks: [bytes], size: bytes.length };
}

/**
 * Checks a snapshot rebuilt from `base` (the active one) and a delta as checkSnapshotBytes checks a
 * downloaded one, reading only what the delta carried: the checksum covers every byte, and the
 * domains copied from `base` are the bytes that passed the schema and compilation with it, so
 * only the replaced sections and the inserted domains are parsed, validated and compiled. Never throws.
 */
export function checkChangedSnapshot(applied: AppliedDelta, base: PulledSnapshot, meta: SnapshotMeta, maxBytes: number): PulledSnapshot | { reason: string } {
  const chunks = snapshotChunks(applied.parts);
  const size = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  const refusal = checkBytes(chunks, size, meta, maxBytes);
  if (refusal) return refusal;
  const previous = base.snapshot as unknown as Record<string, unknown>;
  const sections: Record<string, unknown> = {};
  const shell: Record<string, unknown> = {};
  for (const { name } of applied.parts.members) {
    const replaced = applied.sections.get(name);
    if (replaced) sections[name] = parseJson(replaced);
    shell[name] = name === 'domains' ? [] : replaced ? sections[name] : previous[name];
  }
  const checkers = (validators ??= snapshotValidators());
  const invalid = schemaVersionRefusal(shell) ?? schemaRefusal(checkers.snapshot, shell, '');
  if (invalid) return invalid;
  const domains: SnapshotDomain[] = [];
  for (const [index, source] of applied.sources.entries()) {
    if (typeof source === 'number') {
      domains.push(base.snapshot.domains[source]);
      continue;
    }
    const domain = parseJson(source);
    const bad = schemaRefusal(checkers.domain, domain, `/domains/${index}`) ?? compileRefusal(domain as SnapshotDomain);
    if (bad) return bad;
    domains.push(domain as SnapshotDomain);
  }
  const snapshot = { ...shell, domains } as unknown as ConfigSnapshot;
  const change: SnapshotChange = { since: base.version, sinceChecksum: base.checksum, sections: sections as SnapshotChange['sections'], domains: domainSteps(applied.sources, domains) };
  return { ...meta, snapshot, chunks, size, change };
}

/** The sources of a rebuilt snapshot's domains as steps from the previous version's list (copy runs, skips, inserted domains). */
function domainSteps(sources: readonly DomainSource[], domains: readonly SnapshotDomain[]): DomainStep[] {
  const steps: DomainStep[] = [];
  let cursor = 0;
  const add = (step: number) => {
    const last = steps[steps.length - 1];
    if (typeof last === 'number' && Math.sign(last) === Math.sign(step)) steps[steps.length - 1] = last + step;
    else steps.push(step);
  };
  sources.forEach((source, index) => {
    if (typeof source !== 'number') return void steps.push(domains[index]);
    if (source < cursor) throw new Error('a delta copies domains out of order');
    if (source > cursor) add(cursor - source);
    add(1);
    cursor = source + 1;
  });
  return steps;
}

function checkBytes(chunks: readonly Buffer[], size: number, meta: SnapshotMeta, maxBytes: number): { reason: string } | undefined {
  if (size > maxBytes) return { reason: `snapshot of ${size} bytes exceeds CDN_EDGE_CONFIG_MAX_BYTES (${maxBytes})` };
  const hash = createHash('sha256');
  for (const chunk of chunks) hash.update(chunk);
  if (hash.digest('hex') !== meta.checksum) return { reason: 'checksum mismatch' };
  return undefined;
}

function schemaVersionRefusal(snapshot: Record<string, unknown>): { reason: string } | undefined {
  if (snapshot.schema_version === SNAPSHOT_SCHEMA_VERSION) return undefined;
  return { reason: `unsupported schema_version ${oneLine(JSON.stringify(snapshot.schema_version) ?? 'missing', 40)} (this edge reads ${SNAPSHOT_SCHEMA_VERSION})` };
}

function schemaRefusal(validate: ValidateFunction, value: unknown, at: string): { reason: string } | undefined {
  if (validate(value)) return undefined;
  const error = validate.errors?.[0];
  return { reason: oneLine(`schema: ${at + (error?.instancePath ?? '') || '/'} ${error?.message ?? 'is invalid'}`) };
}

function compileRefusal(domain: SnapshotDomain): { reason: string } | undefined {
  try {
    compileDomain(domain);
    return undefined;
  } catch (error) {
    return { reason: oneLine(`snapshot does not compile: ${(error as Error).message}`) };
  }
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

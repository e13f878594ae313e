// A config answer that carries a delta (docs/edge-protocol.md, "Config delta"): the edge rebuilds
// the new snapshot's bytes from its active snapshot and checks them like a downloaded snapshot
// (checksum of the target version, size, schema, compilation) before activating them, reading
// only the sections and domains the delta carried.
import { objectMembers } from '../../shared/json-spans.js';
import { applyDelta, snapshotParts, type SnapshotParts } from '../../shared/snapshot-delta.js';
import { checkChangedSnapshot, snapshotBytes, type PulledSnapshot } from './snapshot-check.js';

export type DeltaCheck = { kind: 'snapshot'; pulled: PulledSnapshot } | { kind: 'invalid'; reason: string; version?: number };

const DELTA_KEY = Buffer.from('"delta":');
/** The envelope before the delta: `{"data":{"version":N,"checksum":"…","created_at":T,"delta":`. */
const ENVELOPE_BYTES = 256;

/** Each snapshot's bytes cut into parts, once: a rebuilt snapshot's come with it, a downloaded one's are cut at its first delta. */
const partsCache = new WeakMap<PulledSnapshot, SnapshotParts>();

function partsOf(pulled: PulledSnapshot): SnapshotParts {
  let parts = partsCache.get(pulled);
  if (!parts) {
    parts = snapshotParts(snapshotBytes(pulled), false);
    partsCache.set(pulled, parts);
  }
  return parts;
}

type Envelope = { version: number; checksum: string; createdAt: number | null; deltaStart: number };

// The envelope is only read from the answer's first bytes, so a full snapshot (which may hold "delta": deep inside) is never taken for one.
function deltaEnvelope(body: Buffer): Envelope | undefined {
  const keyAt = body.subarray(0, ENVELOPE_BYTES).indexOf(DELTA_KEY);
  if (keyAt === -1) return undefined;
  const deltaStart = keyAt + DELTA_KEY.length;
  let data: Record<string, unknown>;
  try {
    data = (JSON.parse(Buffer.concat([body.subarray(0, deltaStart), Buffer.from('null}}')]).toString()) as { data: Record<string, unknown> }).data;
  } catch {
    return undefined;
  }
  if (typeof data?.version !== 'number' || typeof data.checksum !== 'string') return undefined;
  return { version: data.version, checksum: data.checksum, createdAt: typeof data.created_at === 'number' ? data.created_at : null, deltaStart };
}

function deltaBase(delta: Buffer): { since: unknown; sinceChecksum: unknown } {
  const members = new Map(objectMembers(delta).map((member) => [member.name, member.value]));
  const value = (name: string) => {
    const span = members.get(name);
    return span ? JSON.parse(delta.toString('utf8', span.start, span.end)) : undefined;
  };
  return { since: value('since'), sinceChecksum: value('since_checksum') };
}

/**
 * Undefined when the answer is not a delta; otherwise the snapshot it rebuilds from `active`, or
 * why it could not (the caller then downloads the full snapshot). Never throws.
 */
export function checkDeltaAnswer(body: Buffer, active: PulledSnapshot | undefined, maxBytes: number): DeltaCheck | undefined {
  const envelope = deltaEnvelope(body);
  if (!envelope) return undefined;
  const { version, checksum, createdAt } = envelope;
  if (body.subarray(body.length - 2).toString() !== '}}') return { kind: 'invalid', reason: 'delta answer does not end with the delta and }}', version };
  const delta = body.subarray(envelope.deltaStart, body.length - 2);
  try {
    const base = deltaBase(delta);
    if (!active || base.since !== active.version || base.sinceChecksum !== active.checksum) {
      return { kind: 'invalid', reason: `delta from version ${String(base.since)} does not start from the active snapshot (version ${active?.version ?? 'none'})`, version };
    }
    const applied = applyDelta(partsOf(active), delta);
    const check = checkChangedSnapshot(applied, active, { version, checksum, createdAt }, maxBytes);
    if ('reason' in check) return { kind: 'invalid', reason: `delta to version ${version}: ${check.reason}`, version };
    partsCache.set(check, applied.parts);
    return { kind: 'snapshot', pulled: check };
  } catch (error) {
    // DeltaError, JsonSpanError or a SyntaxError: the delta does not fit the active snapshot.
    return { kind: 'invalid', reason: `delta to version ${version} does not apply: ${(error as Error).message}`, version };
  }
}

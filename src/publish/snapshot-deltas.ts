import type { Db } from '../db/client.js';
import { snapshotParts, writeDelta, type SnapshotParts } from '../shared/snapshot-delta.js';
import { lazyGzip } from './lazy-gzip.js';
import { readSnapshotPayload } from './snapshot-payload.js';
const SNAPSHOT_KEY = Buffer.from('"snapshot":');
/** Versions whose parts are kept: the active one and the few edges are still on (CDN_CONFIG_SNAPSHOT_KEEP_LAST is 2 by default). */
const KEPT_VERSIONS = 4;

/** The active version as served: its answer body holds the snapshot bytes after the first `"snapshot":`. */
export type ServedVersion = { version: number; checksum: string; createdAt: Date; json: Buffer };
/** A delta answer, and its gzip copy (made on first use). */
export type ServedDelta = { json: Buffer; gzip: () => Promise<Buffer> };

function servedParts(served: ServedVersion): SnapshotParts {
  const start = served.json.indexOf(SNAPSHOT_KEY) + SNAPSHOT_KEY.length;
  return snapshotParts(served.json.subarray(start, served.json.length - 2));
}

async function storedParts(db: Db, version: number): Promise<{ parts: SnapshotParts; checksum: string } | undefined> {
  const [row, payload] = await Promise.all([db.configSnapshot.findUnique({ where: { version }, select: { checksum: true } }), readSnapshotPayload(db, version)]);
  return row && payload ? { parts: snapshotParts(payload), checksum: row.checksum } : undefined;
}

/**
 * Delta answers from older versions to the active one (docs/edge-protocol.md, "Config delta"),
 * computed once per (since, active) pair and core, with each version cut into parts once. No
 * delta (undefined: the caller sends the full snapshot) when `since` is not stored any more, is
 * not older than the active version, its snapshot cannot be cut, or the delta answer would not be
 * smaller than the full one.
 */
export class SnapshotDeltas {
  private readonly parts = new Map<number, Promise<{ parts: SnapshotParts; checksum: string } | undefined>>();
  private answers: { version: number; bySince: Map<number, Promise<ServedDelta | undefined>> } = { version: -1, bySince: new Map() };

  get(db: Db, served: ServedVersion, since: number): Promise<ServedDelta | undefined> {
    if (since >= served.version) return Promise.resolve(undefined);
    if (this.answers.version !== served.version) this.answers = { version: served.version, bySince: new Map() };
    let answer = this.answers.bySince.get(since);
    if (!answer) {
      answer = this.build(db, served, since).catch(() => undefined);
      this.answers.bySince.set(since, answer);
    }
    return answer;
  }

  private async build(db: Db, served: ServedVersion, since: number): Promise<ServedDelta | undefined> {
    // Kept in memory or not, a version that is no longer stored is too old: the same answer from every core.
    if (!(await db.configSnapshot.findUnique({ where: { version: since }, select: { version: true } }))) return undefined;
    const [from, to] = await Promise.all([this.partsOf(since, () => storedParts(db, since)), this.partsOf(served.version, async () => ({ parts: servedParts(served), checksum: served.checksum }))]);
    if (!from || !to) return undefined;
    const delta = writeDelta(from.parts, to.parts, since, from.checksum);
    if (!delta) return undefined;
    const head = `{"data":{"version":${served.version},"checksum":"${served.checksum}","created_at":${Math.floor(served.createdAt.getTime() / 1000)},"delta":`;
    const json = Buffer.concat([Buffer.from(head), delta, Buffer.from('}}')]);
    if (json.length >= served.json.length) return undefined;
    return { json, gzip: lazyGzip(json) };
  }

  private partsOf(version: number, load: () => Promise<{ parts: SnapshotParts; checksum: string } | undefined>) {
    let parts = this.parts.get(version);
    if (!parts) {
      parts = load();
      this.parts.set(version, parts);
      // The oldest versions go first: edges ask from recent ones.
      for (const old of [...this.parts.keys()].sort((a, b) => a - b).slice(0, Math.max(0, this.parts.size - KEPT_VERSIONS))) this.parts.delete(old);
    }
    return parts;
  }
}

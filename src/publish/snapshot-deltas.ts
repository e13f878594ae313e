import type { Db } from '../db/client.js';
import { writeDelta, type DeltaBase, type SnapshotParts } from '../shared/snapshot-delta.js';
import type { ServedSnapshot } from './publisher.js';
import { servedBody, type ServedBody } from './served-body.js';
import { layoutParts } from './snapshot-layout.js';
import { readDeltaBase } from './snapshot-store.js';

/** Versions whose parts are kept: the active one and the few edges are still on (CDN_CONFIG_SNAPSHOT_KEEP_LAST is 2 by default). */
const KEPT_VERSIONS = 4;

type Based = { checksum: string; base: DeltaBase };

/**
 * Delta answers from older versions to the active one (docs/edge-protocol.md, "Config delta"),
 * computed once per (since, active) pair and core. The older side needs only its stored digests
 * and sections (no piece is read); the newer side is the served version's own pieces. No delta
 * (undefined: the caller sends the full snapshot) when `since` is not stored any more, is not
 * older than the active version, has other top-level sections, or the delta would not be smaller
 * than the snapshot.
 */
export class SnapshotDeltas {
  private readonly bases = new Map<number, Promise<Based | undefined>>();
  private newest: { version: number; parts: SnapshotParts } | undefined;
  private answers: { version: number; bySince: Map<number, Promise<ServedBody | undefined>> } = { version: -1, bySince: new Map() };

  get(db: Db, served: ServedSnapshot, since: number): Promise<ServedBody | undefined> {
    if (since >= served.version) return Promise.resolve(undefined);
    if (this.answers.version !== served.version) this.answers = { version: served.version, bySince: new Map() };
    let answer = this.answers.bySince.get(since);
    if (!answer) {
      answer = this.build(db, served, since).catch(() => undefined);
      this.answers.bySince.set(since, answer);
    }
    return answer;
  }

  private async build(db: Db, served: ServedSnapshot, since: number): Promise<ServedBody | undefined> {
    // Kept in memory or not, a version that is no longer stored is too old: the same answer from every core.
    if (!(await db.configSnapshot.findUnique({ where: { version: since }, select: { version: true } }))) return undefined;
    const to = this.partsOf(served);
    const from = await this.baseOf(since, () => readDeltaBase(db, since));
    if (!from) return undefined;
    const delta = writeDelta(from.base, to, since, from.checksum);
    if (!delta || delta.length >= served.size) return undefined;
    const head = `{"data":{"version":${served.version},"checksum":"${served.checksum}","created_at":${Math.floor(served.createdAt.getTime() / 1000)},"delta":`;
    return servedBody(() => Buffer.concat([Buffer.from(head), delta, Buffer.from('}}')]));
  }

  // The served version's parts, kept as the base of the next version's deltas too.
  private partsOf(served: ServedSnapshot): SnapshotParts {
    if (this.newest?.version !== served.version) {
      const parts = layoutParts(served.layout);
      this.newest = { version: served.version, parts };
      this.bases.delete(served.version);
      void this.baseOf(served.version, async () => ({ checksum: served.checksum, base: parts }));
    }
    return this.newest.parts;
  }

  private baseOf(version: number, load: () => Promise<Based | undefined>) {
    let base = this.bases.get(version);
    if (!base) {
      base = load();
      this.bases.set(version, base);
      // The oldest versions go first: edges ask from recent ones.
      for (const old of [...this.bases.keys()].sort((a, b) => a - b).slice(0, Math.max(0, this.bases.size - KEPT_VERSIONS))) this.bases.delete(old);
    }
    return base;
  }
}

import { isDeepStrictEqual } from 'node:util';
import type pg from 'pg';
import type { Db } from '../db/client.js';
import { LOCK_KEYS, withAdvisoryLock } from '../db/advisory-lock.js';
import { redactSecrets } from '../http/audit-writer.js';
import { NotFoundError } from '../http/errors.js';
import { unixSeconds } from '../http/timestamps.js';
import { activeChecksum } from './publisher.js';
import { sqlOf, transaction } from '../db/sql.js';
import { readSnapshotBytes } from './snapshot-store.js';
import { publishStateRow } from './publish-state-row.js';

type Payload = { domains: ({ domain: string } & Record<string, unknown>)[] } & Record<string, unknown>;

// The stored row without its body (read apart: snapshot-store.ts).
async function snapshotRow(db: Db, version: number) {
  const row = await db.configSnapshot.findUnique({ where: { version }, omit: { payload: true, head: true, tail: true, piece_digests: true } });
  if (!row) throw new NotFoundError('config snapshot', String(version));
  return row;
}

// One stored snapshot with its payload exactly as edges get it, secrets included.
async function storedSnapshot(db: Db, version: number) {
  const [row, payload] = await Promise.all([snapshotRow(db, version), readSnapshotBytes(db, version)]);
  if (!payload) throw new NotFoundError('config snapshot', String(version));
  return { version: row.version, checksum: row.checksum, size_bytes: row.size_bytes, source: row.source, source_version: row.source_version, created_at: unixSeconds(row.created_at), snapshot: JSON.parse(payload.toString()) };
}

/** One stored snapshot for operators: secrets (the origin shield secret…) are redacted; only the edge pull carries them. */
export async function getSnapshot(db: Db, version: number) {
  const stored = await storedSnapshot(db, version);
  return { ...stored, snapshot: redactSecrets(stored.snapshot) };
}

/**
 * What changed between two snapshots: domains added and removed (by apex), and
 * for changed domains the sections that differ (hostnames, origins, a rule kind…);
 * plus whether the edge-wide settings or the purge list changed.
 */
export async function diffSnapshots(db: Db, from: number, to: number) {
  const [before, after] = await Promise.all([storedSnapshot(db, from), storedSnapshot(db, to)]);
  const old = new Map((before.snapshot as Payload).domains.map((item) => [item.domain, item]));
  const now = new Map((after.snapshot as Payload).domains.map((item) => [item.domain, item]));
  const changed = [...now]
    .filter(([apex]) => old.has(apex))
    .map(([apex, item]) => {
      const previous = old.get(apex)!;
      const sections = [...new Set([...Object.keys(previous), ...Object.keys(item)])].flatMap((key) => {
        if (key !== 'rules') return isDeepStrictEqual(previous[key], item[key]) ? [] : [key];
        const rules = { ...(previous.rules as object), ...(item.rules as object) };
        return Object.keys(rules).filter((kind) => !isDeepStrictEqual((previous.rules as Record<string, unknown>)[kind], (item.rules as Record<string, unknown>)[kind])).map((kind) => `rules.${kind}`);
      });
      return { domain: apex, sections };
    })
    .filter((entry) => entry.sections.length > 0);
  return {
    from_version: from,
    to_version: to,
    identical: before.checksum === after.checksum,
    domains_added: [...now.keys()].filter((apex) => !old.has(apex)).sort(),
    domains_removed: [...old.keys()].filter((apex) => !now.has(apex)).sort(),
    domains_changed: changed.sort((a, b) => a.domain.localeCompare(b.domain)),
    edge_settings_changed: !isDeepStrictEqual(before.snapshot.edge, after.snapshot.edge),
    purges_changed: !isDeepStrictEqual(before.snapshot.purges, after.snapshot.purges),
  };
}

/**
 * Re-publishes an old version's content as a new version (source "rollback"),
 * under the publisher's lock. When that content is the active one's (same
 * checksum), nothing is stored and the active version stays (`outcome:
 * "unchanged"`), so edges have nothing new to download. The database is not
 * changed: the next change to it publishes from the database again.
 */
export async function rollbackSnapshot(db: Db, pool: pg.Pool, version: number) {
  return withAdvisoryLock(pool, LOCK_KEYS.publish, async () => {
    const old = await snapshotRow(db, version);
    const state = await publishStateRow(db);
    if ((await activeChecksum(db, state.active_version)) === old.checksum) {
      return { outcome: 'unchanged' as const, version: state.active_version!, rolled_back_to: old.version, checksum: old.checksum };
    }
    const next = (state.active_version ?? 0) + 1;
    await transaction(db, async (tx) => {
      // The body is copied inside the database (its digests name the same pieces, or its whole payload): none of it travels through the core.
      await sqlOf(tx).query("INSERT INTO config_snapshots (version, checksum, size_bytes, payload, head, tail, piece_digests, source, source_version, domain_count) SELECT $1, checksum, size_bytes, payload, head, tail, piece_digests, 'rollback', version, domain_count FROM config_snapshots WHERE version = $2", [next, old.version]);
      await tx.publishState.update({ where: { id: 1 }, data: { active_version: next, last_publish_at: new Date() } });
    });
    return { outcome: 'published' as const, version: next, rolled_back_to: old.version, checksum: old.checksum };
  });
}

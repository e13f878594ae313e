// Versions stored by pieces (docs/snapshots.md, "Storing versions by pieces"): each domain's piece
// once in config_snapshot_pieces, by its SHA-256; per version, the bytes around the pieces and the
// list of their digests. Versions stored before keep their whole payload, read as they were.
import type pg from 'pg';
import type { Db } from '../db/client.js';
import { sqlOf, type Sql } from '../db/sql.js';
import { deltaBase, layoutBytes, layoutChecksum, layoutOf, splitDigests, type SnapshotLayout } from './snapshot-layout.js';
import { readSnapshotPayload } from './snapshot-payload.js';
import type { DeltaBase } from '../shared/snapshot-delta.js';

/** A version's row as the publisher stores it. */
export type VersionRow = { version: number; checksum: string; size: number; layout: SnapshotLayout; source: string; domainCount: number; publishedSeq: bigint };

// New pieces go in a few hundred at a time (about 1.7 KiB each), so no statement carries tens of MiB.
const PIECES_PER_INSERT = 500;

// The pieces of `version` that are stored for sure: a stored version's pieces stay while it does.
async function storedDigests(client: pg.PoolClient, version: number | null): Promise<Set<string>> {
  if (version === null) return new Set();
  const { rows } = await client.query<{ piece_digests: Buffer | null }>('SELECT piece_digests FROM config_snapshots WHERE version = $1', [version]);
  const joined = rows[0]?.piece_digests;
  return new Set(joined ? splitDigests(joined).map((digest) => digest.toString('latin1')) : []);
}

// The pieces `layout` has that `known` lacks, each once.
function newPieces(layout: SnapshotLayout, known: Set<string>): Map<string, { digest: Buffer; bytes: Buffer }> {
  const fresh = new Map<string, { digest: Buffer; bytes: Buffer }>();
  layout.digests.forEach((digest, index) => {
    const key = digest.toString('latin1');
    if (!known.has(key)) fresh.set(key, { digest, bytes: layout.pieces[index] });
  });
  return fresh;
}

/**
 * Stores version `row` on `client`, inside the caller's transaction and under the publisher's
 * lock: the pieces that `previous` (the active version) does not have (an older version may have
 * them already), then the version's row. Returns the row's created_at.
 */
export async function storeVersion(client: pg.PoolClient, row: VersionRow, previous: number | null): Promise<Date> {
  const fresh = [...newPieces(row.layout, await storedDigests(client, previous)).values()];
  for (let at = 0; at < fresh.length; at += PIECES_PER_INSERT) {
    const batch = fresh.slice(at, at + PIECES_PER_INSERT);
    await client.query('INSERT INTO config_snapshot_pieces (digest, bytes) SELECT * FROM unnest($1::bytea[], $2::bytea[]) ON CONFLICT (digest) DO NOTHING', [batch.map((piece) => piece.digest), batch.map((piece) => piece.bytes)]);
  }
  const { layout } = row;
  const { rows } = await client.query<{ created_at: Date }>(
    'INSERT INTO config_snapshots (version, checksum, size_bytes, head, tail, piece_digests, source, domain_count, published_seq) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING created_at',
    [row.version, row.checksum, row.size, layout.head, layout.tail, Buffer.concat(layout.digests), row.source, row.domainCount, row.publishedSeq],
  );
  return rows[0].created_at;
}

/**
 * Deletes the pieces no stored version names any more (after versions were pruned, under the
 * publisher's lock). The digests still named are gathered once and anti-joined, which spills to
 * disk rather than slowing down when they outgrow work_mem.
 */
export async function deleteUnusedPieces(sql: Sql): Promise<number> {
  const { rowCount } = await sql.query(`
    WITH named AS MATERIALIZED (
      SELECT DISTINCT substring(s.piece_digests FROM at FOR 32) AS digest
      FROM config_snapshots s CROSS JOIN generate_series(1, octet_length(s.piece_digests), 32) AS at
      WHERE s.piece_digests IS NOT NULL)
    DELETE FROM config_snapshot_pieces p WHERE NOT EXISTS (SELECT 1 FROM named n WHERE n.digest = p.digest)`);
  return rowCount ?? 0;
}

type StoredRow = { checksum: string; created_at: Date; head: Buffer | null; tail: Buffer | null; piece_digests: Buffer | null; whole: boolean };
/** A stored version as read back: its checksum (verified against the bytes when its pieces were read), time and layout. */
export type StoredLayout = { checksum: string; createdAt: Date; layout: SnapshotLayout };

async function storedRow(sql: Sql, version: number): Promise<StoredRow | undefined> {
  const { rows } = await sql.query<StoredRow>('SELECT checksum, created_at, head, tail, piece_digests, payload IS NOT NULL AS whole FROM config_snapshots WHERE version = $1', [version]);
  return rows[0];
}

const PIECES_OF = `
  SELECT p.bytes FROM config_snapshots s
  CROSS JOIN generate_series(1, octet_length(s.piece_digests), 32) AS at
  JOIN config_snapshot_pieces p ON p.digest = substring(s.piece_digests FROM at FOR 32)
  WHERE s.version = $1
  ORDER BY at`;

// A version stored before pieces: its whole payload, cut into its layout.
async function wholeLayout(db: Db, version: number, row: StoredRow): Promise<StoredLayout | undefined> {
  const payload = await readSnapshotPayload(db, version);
  return payload ? { checksum: row.checksum, createdAt: row.created_at, layout: layoutOf(payload) } : undefined;
}

/**
 * Stored version `version` with every piece, or undefined when it is not stored (or was pruned
 * while it was read). Throws when its pieces do not give back its checksum.
 */
export async function readStoredLayout(db: Db, version: number): Promise<StoredLayout | undefined> {
  const sql = sqlOf(db);
  const row = await storedRow(sql, version);
  if (!row) return undefined;
  if (row.whole) return wholeLayout(db, version, row);
  const digests = splitDigests(row.piece_digests!);
  const { rows } = await sql.query<{ bytes: Buffer }>(PIECES_OF, [version]);
  if (rows.length !== digests.length && !(await storedRow(sql, version))) return undefined;
  const layout = { head: row.head!, tail: row.tail!, digests, pieces: rows.map((piece) => piece.bytes) };
  if (rows.length !== digests.length || layoutChecksum(layout) !== row.checksum) throw new Error(`config snapshot ${version}: its stored pieces do not give back its checksum`);
  return { checksum: row.checksum, createdAt: row.created_at, layout };
}

/** The body of stored version `version`, or undefined when it is not stored. */
export async function readSnapshotBytes(db: Db, version: number): Promise<Buffer | undefined> {
  const stored = await readStoredLayout(db, version);
  return stored && layoutBytes(stored.layout);
}

/** What a delta from stored version `version` needs (no piece is read), or undefined when it is not stored. */
export async function readDeltaBase(db: Db, version: number): Promise<{ checksum: string; base: DeltaBase } | undefined> {
  const row = await storedRow(sqlOf(db), version);
  if (!row) return undefined;
  const manifest = row.whole ? (await wholeLayout(db, version, row))?.layout : { head: row.head!, tail: row.tail!, digests: splitDigests(row.piece_digests!) };
  return manifest && { checksum: row.checksum, base: deltaBase(manifest) };
}

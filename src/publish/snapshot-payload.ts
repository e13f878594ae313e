// Reading a stored snapshot's payload (tens of MiB at 10,000 domains). Through Prisma, a bytea
// comes back as an array of numbers (its pg adapter), and even raw pg re-copies its read buffer
// for each network chunk of one large row: 18 MiB took 5–10 s of CPU through Prisma and 0.7 s
// through pg. Read as 1 MiB pieces, each base64 text (a third larger than the bytes, where hex
// is twice as large), it takes about 0.13 s of CPU and 0.2 s.
import type { Db } from '../db/client.js';
import { sqlOf } from '../db/sql.js';

const PIECE_BYTES = 1 << 20;
// Each piece is encoded on its own, so pieces join as bytes; the line breaks encode() puts in base64 are skipped by Buffer.from.
const PIECES = `
  SELECT encode(substring(payload FROM start FOR $2), 'base64') AS piece
  FROM config_snapshots, generate_series(1, greatest(octet_length(payload), 1), $2) start
  WHERE version = $1
  ORDER BY start`;

/** The payload of stored snapshot `version`, or undefined when it is not stored. */
export async function readSnapshotPayload(db: Db, version: number): Promise<Buffer | undefined> {
  const { rows } = await sqlOf(db).query<{ piece: string }>(PIECES, [version, PIECE_BYTES]);
  return rows.length ? Buffer.concat(rows.map((row) => Buffer.from(row.piece, 'base64'))) : undefined;
}

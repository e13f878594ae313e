// A snapshot as the publisher builds and stores it (docs/snapshots.md, "Storing versions by
// pieces"): the bytes before its domains, each domain's piece with the SHA-256 of its bytes, and
// the bytes after. The body edges verify is head, the pieces joined by commas, tail.
import { createHash } from 'node:crypto';
import { arrayElements, objectMembers } from '../shared/json-spans.js';
import { snapshotParts, DeltaError, type DeltaBase, type SnapshotParts } from '../shared/snapshot-delta.js';

export type SnapshotLayout = { head: Buffer; pieces: Buffer[]; digests: Buffer[]; tail: Buffer };
/** A stored version without its pieces: enough to write a delta from it. */
export type SnapshotManifest = Omit<SnapshotLayout, 'pieces'>;

const COMMA = Buffer.from(',');
export const DIGEST_BYTES = 32;

export function pieceDigest(piece: Buffer): Buffer {
  return createHash('sha256').update(piece).digest();
}

/** The body's bytes in order, as the buffers they are held in. */
export function layoutChunks(layout: SnapshotLayout): Buffer[] {
  const chunks = [layout.head];
  layout.pieces.forEach((piece, index) => (index ? chunks.push(COMMA, piece) : chunks.push(piece)));
  chunks.push(layout.tail);
  return chunks;
}

export function layoutSize(layout: SnapshotLayout): number {
  return layout.head.length + layout.tail.length + layout.pieces.reduce((sum, piece) => sum + piece.length, 0) + Math.max(0, layout.pieces.length - 1);
}

/** The SHA-256 (hex) of the body, hashed piece by piece. */
export function layoutChecksum(layout: SnapshotLayout): string {
  const hash = createHash('sha256');
  for (const chunk of layoutChunks(layout)) hash.update(chunk);
  return hash.digest('hex');
}

export function layoutBytes(layout: SnapshotLayout): Buffer {
  return Buffer.concat(layoutChunks(layout));
}

/** Cuts a whole body (a version stored before pieces) into its layout; throws JsonSpanError or DeltaError when it is not a canonical snapshot. */
export function layoutOf(body: Buffer): SnapshotLayout {
  const list = objectMembers(body).find((member) => member.name === 'domains');
  if (!list) throw new DeltaError('the snapshot has no domains');
  const pieces = arrayElements(body, list.value.start).map((span) => body.subarray(span.start, span.end));
  return { head: body.subarray(0, list.value.start + 1), pieces, digests: pieces.map(pieceDigest), tail: body.subarray(list.value.end - 1) };
}

/** Concatenated digests (as stored in piece_digests) as one buffer each. */
export function splitDigests(joined: Buffer): Buffer[] {
  if (joined.length % DIGEST_BYTES) throw new DeltaError(`piece digests of ${joined.length} bytes are not whole SHA-256 digests`);
  const digests: Buffer[] = [];
  for (let at = 0; at < joined.length; at += DIGEST_BYTES) digests.push(joined.subarray(at, at + DIGEST_BYTES));
  return digests;
}

// The top-level members, from the body with no domains (head and tail joined are `…"domains":[],…`).
function members(manifest: SnapshotManifest): SnapshotParts['members'] {
  return snapshotParts(Buffer.concat([manifest.head, manifest.tail]), false).members;
}

/** What a delta from this version needs: its top-level sections and its domains' digests. */
export function deltaBase(manifest: SnapshotManifest): DeltaBase {
  return { members: members(manifest), digests: manifest.digests.map((digest) => digest.toString('base64')) };
}

/** The parts a delta to this version is written from (its domains are the pieces themselves). */
export function layoutParts(layout: SnapshotLayout): SnapshotParts {
  return { ...deltaBase(layout), domains: layout.pieces };
}

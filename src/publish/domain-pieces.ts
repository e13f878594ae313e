// Each active domain's serialized snapshot piece, kept in the core's memory between builds with
// the fingerprint of the rows it was built from (docs/snapshots.md, "Per-domain pieces"). A build
// asks Postgres for every active domain's fingerprint and rebuilds only the domains whose
// fingerprint it has not seen: a one-record change at 10,000 domains reads and serializes one.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { pieceDigest } from './snapshot-layout.js';

/** A domain's serialized piece: its canonical JSON, as it stands in the snapshot's `domains` array, and the SHA-256 of it. */
export type DomainPiece = { fingerprint: string; bytes: Buffer; digest: Buffer };
/** An active domain: its id, its apex (the snapshot's sort key) and the fingerprint of its rows. */
export type DomainFingerprint = { id: string; domain: string; fingerprint: string };

// Every table a domain's piece is built from, with all of the domain's rows (a superset of the rows
// the piece uses: a change to a row the piece leaves out only costs a rebuild of that domain).
const PER_DOMAIN_TABLES = ['dns_records', 'origins', 'ssl_certificates', 'ip_rules', 'waf_rules', 'rate_limit_rules', 'redirect_rules', 'page_rules', 'cache_rules', 'header_rules'];

// A committed row version is named by its id and its xmin (the transaction that wrote it): any
// insert, update or delete changes a table's (count, XOR of 64-bit hashes of id:xmin) for that domain.
// Reading xmin costs Postgres no row-to-text conversion: 40 ms for 80,000 records, against 430 ms for
// hashing the rows' text (docs/benchmarks.md).
const FINGERPRINTS = `
  SELECT d.id, d.domain, concat_ws('|', d.xmin, 'c' || c.xmin, 's' || s.xmin, ${PER_DOMAIN_TABLES.map((_, index) => `t${index}.h`).join(', ')}) AS fingerprint
  FROM domains d
  LEFT JOIN cache_settings c ON c.domain_id = d.id
  LEFT JOIN ssl_settings s ON s.domain_id = d.id
  ${PER_DOMAIN_TABLES.map((table, index) => `LEFT JOIN (SELECT t.domain_id, '${index}:' || count(*) || ':' || bit_xor(hashtextextended(t.id || ':' || t.xmin, 0)) AS h FROM ${table} t GROUP BY t.domain_id) t${index} ON t${index}.domain_id = d.id`).join('\n  ')}
  WHERE d.status = 'active'`;

/** The fingerprint of every active domain's rows, in one statement. */
export async function domainFingerprints(pool: pg.Pool): Promise<DomainFingerprint[]> {
  return (await pool.query<DomainFingerprint>(FINGERPRINTS)).rows;
}

/**
 * The pieces of the last build, keyed by domain id. `settingsKey` stands for what a piece depends
 * on besides its rows (the configured defaults); a different one empties the cache.
 */
export class DomainPieceCache {
  private pieces = new Map<string, DomainPiece>();
  private settingsKey = '';

  /** The ids whose piece must be built for these fingerprints (all of them after a settings change). */
  stale(fingerprints: DomainFingerprint[], settings: unknown): string[] {
    const key = createHash('sha256').update(JSON.stringify(settings)).digest('hex');
    if (key !== this.settingsKey) {
      this.pieces.clear();
      this.settingsKey = key;
    }
    return fingerprints.filter((row) => this.pieces.get(row.id)?.fingerprint !== row.fingerprint).map((row) => row.id);
  }

  /** Keeps the new pieces, and forgets the stale ones not rebuilt and the domains that are no longer active. */
  update(fingerprints: DomainFingerprint[], stale: string[], built: Map<string, Buffer>): void {
    const next = new Map<string, DomainPiece>();
    const rebuilt = new Set(stale);
    for (const row of fingerprints) {
      const bytes = built.get(row.id);
      const piece = bytes ? { fingerprint: row.fingerprint, bytes, digest: pieceDigest(bytes) } : rebuilt.has(row.id) ? undefined : this.pieces.get(row.id);
      if (piece) next.set(row.id, piece);
    }
    this.pieces = next;
  }

  get(id: string): DomainPiece | undefined {
    return this.pieces.get(id);
  }
}

import type pg from 'pg';
import type { Db } from './client.js';
import { sqlOf } from './sql.js';

/** Read models whose version counter is kept by triggers (see the read_versions migration). */
export type ReadModel = 'domains' | 'dns_records';

/** The current version of a read model; changes whenever a table behind it is written. */
export async function readVersion(pool: pg.Pool, model: ReadModel): Promise<string> {
  const { rows } = await pool.query<{ version: string }>('SELECT version::text AS version FROM read_versions WHERE name = $1', [model]);
  return rows[0]?.version ?? 'none';
}

/**
 * Makes the rest of this transaction skip the per-statement read-version bumps; the caller must
 * call bumpReadVersions before it commits. A long transaction then holds the counter rows only
 * for a moment, instead of from its first write until its commit.
 */
export async function deferReadVersions(tx: Db): Promise<void> {
  await sqlOf(tx).query("SELECT set_config('cdn.read_versions_deferred', 'on', true)");
}

/** Bumps every read version once, in the order a domain update's triggers take them (dns_records, then domains). */
export async function bumpReadVersions(tx: Db): Promise<void> {
  // Two statements in one simple query: one round trip, run in the order written.
  await sqlOf(tx).query("UPDATE read_versions SET version = version + 1 WHERE name = 'dns_records'; UPDATE read_versions SET version = version + 1 WHERE name = 'domains'");
}

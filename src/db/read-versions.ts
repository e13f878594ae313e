import type pg from 'pg';

/** Read models whose version counter is kept by triggers (see the read_versions migration). */
export type ReadModel = 'domains' | 'dns_records';

/** The current version of a read model; changes whenever a table behind it is written. */
export async function readVersion(pool: pg.Pool, model: ReadModel): Promise<string> {
  const { rows } = await pool.query<{ version: string }>('SELECT version::text AS version FROM read_versions WHERE name = $1', [model]);
  return rows[0]?.version ?? 'none';
}

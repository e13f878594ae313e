import type pg from 'pg';

/** A function that returns one digest per table of the public schema (except `excluded`), for "nothing changed" checks. */
export async function tableFingerprinter(pool: pg.Pool, excluded: string[]): Promise<() => Promise<Record<string, string>>> {
  const { rows } = await pool.query<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`);
  const tables = rows.map((row) => row.name).filter((name) => !excluded.includes(name));
  // Every insert, update or delete changes a table's row count or the sum of its rows' xmin (the id of the transaction that wrote each row version).
  const columns = tables.map((name) => `(SELECT count(*) || ':' || coalesce(sum(xmin::text::bigint), 0) FROM "${name}") AS "${name}"`);
  const query = `SELECT ${columns.join(', ')}`;
  return async () => (await pool.query<Record<string, string>>({ name: 'table-fingerprint', text: query })).rows[0];
}

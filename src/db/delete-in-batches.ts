import type pg from 'pg';

/**
 * Deletes the rows of `table` matching `predicate` (SQL over the table's columns,
 * with `params` as $1, $2, …), at most `batchSize` per statement, until none is
 * left; returns how many. Each batch is its own short statement and transaction,
 * so a large backlog never holds locks for long nor bloats one transaction.
 * `table` and `predicate` are trusted SQL from the code, never from a request.
 */
export async function deleteInBatches(db: pg.Pool | pg.PoolClient, table: string, predicate: string, params: unknown[], batchSize: number): Promise<number> {
  const limit = `$${params.length + 1}`;
  const sql = `DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE ${predicate} LIMIT ${limit})`;
  let total = 0;
  for (;;) {
    const deleted = (await db.query(sql, [...params, batchSize])).rowCount ?? 0;
    total += deleted;
    if (deleted < batchSize) return total;
  }
}

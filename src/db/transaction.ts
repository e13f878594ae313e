import pg from 'pg';

/**
 * Runs `work` in one transaction: on a connection of its own from a pool, or on a
 * connection the caller holds. Committed when it resolves, rolled back when it throws.
 */
export async function inTransaction<T>(on: pg.Pool | pg.PoolClient, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const pooled = on instanceof pg.Pool;
  const client = pooled ? await on.connect() : on;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    if (pooled) client.release();
  }
}

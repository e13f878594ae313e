import type pg from 'pg';

/** Lock keys of the singleton jobs. The migration key is Prisma's own, so `prisma migrate` and we exclude each other. */
export const LOCK_KEYS = {
  migrate: 72707369,
  publish: 72707370,
  dnsSync: 72707371,
  nameserverChecks: 72707374,
  // Two-key locks: (securityQueue, hash of edge/queue) serializes one edge queue's pushes.
  securityQueue: 72707372,
  // Two-key locks: (writeScope, hashtext(scope)) serializes writes that check a rule across rows (write-lock.ts).
  writeScope: 72707373,
  retention: 72707380,
  sslRenewalScan: 72707381,
  canaryRollout: 72707382,
} as const;

/** Runs `work` on one dedicated connection while holding a session advisory lock, waiting for it if taken. */
export async function withAdvisoryLock<T>(pool: pg.Pool, key: number, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [key]);
    try {
      return await work(client);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [key]);
    }
  } finally {
    client.release();
  }
}

/**
 * Runs `work` while holding a session advisory lock, or returns `undefined` at once
 * without running it when another session holds the lock (for jobs where a second
 * runner has nothing left to do).
 */
export async function withAdvisoryLockIfFree<T>(pool: pg.Pool, key: number, work: (client: pg.PoolClient) => Promise<T>): Promise<{ value: T } | undefined> {
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [key]);
    if (!rows[0].locked) return undefined;
    try {
      return { value: await work(client) };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [key]);
    }
  } finally {
    client.release();
  }
}

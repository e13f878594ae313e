import type pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import type { Logger } from 'pino';
import { PrismaClient } from '../generated/prisma/client.js';
import { registerPool, SqlPool } from './sql.js';
import { queryErrorReportingClient } from './query-errors.js';

export type Db = PrismaClient;
export type Database = { prisma: PrismaClient; pool: pg.Pool; close: () => Promise<void> };

/**
 * Opens the pool shared by Prisma (through the pg adapter) and by raw queries (readiness,
 * migrations, locks, and sqlOf() inside Prisma's own transactions). Lost connections are logged,
 * never fatal: the pool reconnects on the next query once the database is back. `onQueryError`
 * hears of every failed query (the core's metrics).
 */
export function openDatabase(url: string, logger: Logger, max = 10, onQueryError?: (error: unknown) => void): Database {
  const pool = new SqlPool({ connectionString: url, max, connectionTimeoutMillis: 5000, idleTimeoutMillis: 30000, ...(onQueryError ? { Client: queryErrorReportingClient(onQueryError) } : {}) });
  pool.on('error', (error) => logger.warn({ err: error.message }, 'idle database connection lost'));
  // A connection can also be cut while checked out between queries (a server restart or shutdown);
  // without a listener that error would end the process.
  pool.on('connect', (client) => client.on('error', (error) => logger.warn({ err: error.message }, 'database connection lost')));
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  registerPool(prisma, pool);
  return {
    prisma,
    pool,
    close: async () => {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

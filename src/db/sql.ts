import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import type { Db } from './client.js';

/**
 * Hand-written SQL on the connection Prisma uses (docs/database.md, "SQL beside Prisma"). Prisma 6
 * compiles every model query again, so the statements writes run many times go through `pg`; inside
 * a transaction they run on its connection, and see and roll back with what Prisma wrote there.
 */
export type Sql = { query<R extends pg.QueryResultRow = Record<string, unknown>>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> };

// A transaction being opened: the connection Prisma checks out for it, and whether Prisma has ended it.
type Opening = { connection?: pg.PoolClient; ended?: boolean };
const connections = new WeakMap<object, Sql>();

// One AsyncLocalStorage per transaction while it is being opened, disabled as soon as it has its
// connection: on Node 20 an enabled AsyncLocalStorage slows every await of the process (async hooks),
// so none stays enabled while no transaction is opening.
const openings = new Set<AsyncLocalStorage<Opening>>();

function openingHere(): Opening | undefined {
  for (const storage of openings) {
    const slot = storage.getStore();
    if (slot) return slot;
  }
  return undefined;
}

const ENDING = new Set(['COMMIT', 'ROLLBACK']);

// Marks the transaction ended as soon as Prisma sends COMMIT or ROLLBACK on its connection (SQL queued
// behind those would run outside any transaction), and when the connection goes back to the pool. The
// connection's own query and release (the pool gives each checkout its own) are restored at release.
function watchEnd(client: pg.PoolClient, slot: Opening): void {
  const release = client.release;
  const query = client.query as (...args: unknown[]) => unknown;
  client.query = function (this: pg.PoolClient, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: unknown } | undefined)?.text;
    if (typeof text === 'string' && ENDING.has(text)) slot.ended = true;
    return query.apply(this, args);
  } as typeof client.query;
  client.release = (error?: Error | boolean) => {
    slot.ended = true;
    delete (client as { query?: unknown }).query;
    client.release = release;
    return release.call(client, error);
  };
}

/**
 * The pool behind Prisma's adapter. The adapter checks a connection out (connect() without a
 * callback) when it begins a transaction; inside `transaction()` that connection is kept for the
 * transaction's SQL. Queries of the pool itself (connect with a callback) are left alone.
 */
export class SqlPool extends pg.Pool {
  connect(): Promise<pg.PoolClient>;
  connect(callback: (error: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void): void;
  connect(callback?: (error: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void): Promise<pg.PoolClient> | void {
    if (callback) return super.connect(callback as never);
    const slot = openingHere();
    return super.connect().then((client) => {
      if (slot && !slot.connection) {
        slot.connection = client;
        watchEnd(client, slot);
      }
      return client;
    });
  }
}

/** Makes `sqlOf(prisma)` (outside any transaction) run on `pool`. */
export function registerPool(prisma: Db, pool: pg.Pool): void {
  connections.set(prisma, pool as Sql);
}

/** The SQL connection of `db`: its transaction's connection, or the pool for the client itself. */
export function sqlOf(db: Db): Sql {
  const sql = connections.get(db);
  if (!sql) throw new Error('no SQL connection is known for this database client; open transactions with transaction() from src/db/sql.ts');
  return sql;
}

// The transaction's connection for as long as the transaction holds it: once Prisma ended it (commit,
// rollback, its timeout) the connection may be serving someone else, so SQL through it is refused.
function transactionSql(slot: Opening): Sql {
  const connection = slot.connection!;
  return {
    query: (text, values) => {
      if (slot.ended) return Promise.reject(new Error('the transaction has ended (committed, rolled back or timed out); its connection is no longer this work’s'));
      return connection.query(text, values);
    },
  };
}

/** True for the client of an interactive transaction (it has no $transaction of its own). */
export function isTransactionClient(db: Db): boolean {
  return typeof (db as { $transaction?: unknown }).$transaction !== 'function';
}

export type TransactionOptions = { timeout?: number; maxWait?: number };

/** Runs `work` in one Prisma interactive transaction whose connection sqlOf(tx) also reaches. */
export async function transaction<T>(prisma: Db, work: (tx: Db) => Promise<T>, options?: TransactionOptions): Promise<T> {
  const slot: Opening = {};
  const storage = new AsyncLocalStorage<Opening>();
  const opened = () => {
    openings.delete(storage);
    storage.disable();
  };
  openings.add(storage);
  try {
    return await storage.run(slot, () =>
      prisma.$transaction(async (client) => {
        opened();
        const tx = client as unknown as Db;
        if (!slot.connection) throw new Error('the transaction began on a connection that did not come from an SqlPool');
        connections.set(tx, transactionSql(slot));
        return work(tx);
      }, options),
    );
  } finally {
    opened();
  }
}

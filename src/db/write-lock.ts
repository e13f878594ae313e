import type { Db } from './client.js';

// First key of the two-key write locks; the second is hashtext(scope). Two-key advisory
// locks are a key space of their own, apart from the single-key locks of advisory-lock.ts.
const WRITE_LOCK_SPACE = 72707380;

/**
 * Serializes writes that check a rule across rows before they write (no duplicate, CNAME
 * exclusivity): takes a transaction-scoped advisory lock on `scope` (e.g. `dns:<domain id>`),
 * waiting while another transaction holds it; it is released at commit or rollback. Call it
 * inside the writing transaction, before the check: under READ COMMITTED the check's
 * query then sees what the previous holder committed, so a concurrent duplicate gets the
 * same 422 as a sequential one.
 */
export async function lockForWrite(db: Db, scope: string): Promise<void> {
  // An interactive transaction's client has no $transaction; outside one the lock would be released at once.
  if (typeof (db as { $transaction?: unknown }).$transaction === 'function') throw new Error(`lockForWrite(${scope}) must run inside a transaction`);
  await db.$executeRaw`SELECT pg_advisory_xact_lock(${WRITE_LOCK_SPACE}::int4, hashtext(${scope}))`;
}


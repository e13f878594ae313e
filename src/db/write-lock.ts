import { LOCK_KEYS } from './advisory-lock.js';
import type { Db } from './client.js';
import { sqlOf } from './sql.js';

// The two-key write locks are (LOCK_KEYS.writeScope, hashtext(scope)).
const WRITE_LOCK_SPACE = LOCK_KEYS.writeScope;

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
  const held = heldLocks.get(db) ?? new Set<string>();
  if (held.has(scope)) return;
  await sqlOf(db).query('SELECT pg_advisory_xact_lock($1::int4, hashtext($2))', [WRITE_LOCK_SPACE, scope]);
  held.add(scope);
  heldLocks.set(db, held);
}

// The scopes each transaction already holds: a batch of writes to one zone takes its lock once
// (transaction-scoped locks last until commit or rollback, and the transaction's client dies with it).
const heldLocks = new WeakMap<Db, Set<string>>();


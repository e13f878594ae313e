import { LOCK_KEYS } from './advisory-lock.js';
import type { Db } from './client.js';
import { isTransactionClient, sqlOf } from './sql.js';

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
  // Outside a transaction the lock would be released at once.
  if (!isTransactionClient(db)) throw new Error(`lockForWrite(${scope}) must run inside a transaction`);
  const held = heldLocks.get(db) ?? new Set<string>();
  if (held.has(scope)) return;
  await sqlOf(db).query('SELECT pg_advisory_xact_lock($1::int4, hashtext($2))', [WRITE_LOCK_SPACE, scope]);
  held.add(scope);
  heldLocks.set(db, held);
}

/** Records that this transaction created the domain (see lockDomainWrites); outside a transaction it means nothing. */
export function noteDomainCreated(db: Db, domainId: string): void {
  if (isTransactionClient(db)) createdDomains.set(db, (createdDomains.get(db) ?? new Set()).add(domainId));
}

/**
 * lockForWrite on `<what>:<domain id>` (`dns`, `origins`, `rules:<kind>`), skipped for a domain this
 * transaction created: until it commits no other transaction can see that domain, so none can write
 * under it (a batch creating a domain with its records, origins and rules takes no lock for them).
 */
export async function lockDomainWrites(db: Db, domainId: string, what: string): Promise<void> {
  if (createdDomains.get(db)?.has(domainId)) return;
  await lockForWrite(db, `${what}:${domainId}`);
}

const createdDomains = new WeakMap<Db, Set<string>>();

// The scopes each transaction already holds: a batch of writes to one zone takes its lock once
// (transaction-scoped locks last until commit or rollback, and the transaction's client dies with it).
const heldLocks = new WeakMap<Db, Set<string>>();


// Whether the database's schema is what this core's code expects: every migration it ships is
// applied. A core started with CDN_AUTO_MIGRATE=false on a database that is behind answers /ready
// with 503 until `cdn migrate` has run, so a load balancer sends it nothing (docs/database.md).
import type pg from 'pg';
import { migrationStatus, pendingNames } from '../../db/migrator.js';

/** A current schema is trusted this long before it is read again (migrations do not go backwards). */
const CURRENT_FOR_MS = 30_000;

export type MigrationsCheck = { ok: true } | { ok: false; pending: string[] } | { ok: false; error: string };

/** Checks the migrations on every call until they are current, then at most every CURRENT_FOR_MS. */
export function migrationsCheck(pool: pg.Pool): () => Promise<MigrationsCheck> {
  let currentUntil = 0;
  return async () => {
    if (Date.now() < currentUntil) return { ok: true };
    try {
      const pending = pendingNames(await migrationStatus(pool));
      if (pending.length) return { ok: false, pending };
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    }
    currentUntil = Date.now() + CURRENT_FOR_MS;
    return { ok: true };
  };
}

/** The check as the authenticated readiness detail says it. */
export function describeMigrationsCheck(check: MigrationsCheck): string {
  if (check.ok) return 'ok';
  return 'pending' in check ? `fail: ${check.pending.length} pending (${check.pending.join(', ')}); run \`cdn migrate\`` : `fail: ${check.error}`;
}

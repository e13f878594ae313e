// The database as `cdn doctor` sees it: reachable, every migration applied (the migrator's own
// reading, as `cdn migrate --status` prints it), and the platform nameservers it holds.
import type pg from 'pg';
import type { Config } from '../config/load.js';
import type { Db } from '../db/client.js';
import { migrationStatus, pendingNames } from '../db/migrator.js';
import { pingDatabase } from '../db/ping.js';
import { platformNameservers } from '../features/domains/platform-nameservers.js';
import { checkLine, someOf, unsafeStatus, type CheckResult } from './check-result.js';

async function migrationsLine(pool: pg.Pool, pingMs: number): Promise<CheckResult> {
  let states;
  try {
    states = await migrationStatus(pool);
  } catch (error) {
    return checkLine('database', 'fail', `reachable, but ${(error as Error).message}`, 'see docs/database.md, Migrations');
  }
  const pending = pendingNames(states);
  if (pending.length) {
    return checkLine('database', 'fail', `reachable, ${pending.length} of ${states.length} migrations pending (${someOf(pending.reverse())})`, 'back the database up, then run `cdn migrate` (or start a core with CDN_AUTO_MIGRATE=true)');
  }
  return checkLine('database', 'ok', `reachable (${pingMs} ms), ${states.length} migrations applied, none pending`);
}

/** `database`: answers `SELECT 1` within `timeoutMs`, and no migration is pending or changed since it ran; `reachable` lets the checks that read it go on. */
export async function databaseCheck(pool: pg.Pool, timeoutMs: number): Promise<{ result: CheckResult; reachable: boolean }> {
  const ping = await pingDatabase(pool, timeoutMs);
  if (!ping.ok) return { result: checkLine('database', 'fail', `not reachable: ${ping.error}`, 'check DATABASE_URL (host, port, user, password, database name) and that PostgreSQL runs'), reachable: false };
  return { result: await migrationsLine(pool, ping.ms), reachable: true };
}

const PLACEHOLDER = /(^|\.)localhost$/;

/** `nameservers`: the platform nameservers domains must delegate to are real names, not the local placeholders. */
export async function nameserversCheck(db: Db, config: Config): Promise<CheckResult> {
  const names = await platformNameservers(db, config);
  const placeholders = names.filter((name) => PLACEHOLDER.test(name));
  if (names.length === 0) return checkLine('nameservers', unsafeStatus(config), 'no platform nameserver is set', 'set the nameservers settings group (hostnames) or CDN_DEFAULT_NAMESERVERS');
  if (placeholders.length) {
    return checkLine('nameservers', unsafeStatus(config), `the platform nameservers ${someOf(placeholders)} are local placeholders: no real domain can delegate to them`, 'set the nameservers settings group (hostnames) or CDN_DEFAULT_NAMESERVERS to your platform nameservers');
  }
  return checkLine('nameservers', 'ok', `domains delegate to ${someOf(names, 4)}`);
}

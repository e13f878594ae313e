import { isIPv6 } from 'node:net';
import type pg from 'pg';
import { inTransaction } from '../../db/transaction.js';
import { TooManyRequestsError } from '../../http/errors.js';
import { canonicalIp, ipv6Network64 } from '../../shared/ip-address.js';

// Failed admin logins slow down per username and per client address. Each attempt
// is counted before the password is checked (so a burst of parallel guesses cannot
// all get through) and forgiven when it succeeds. Past `free` failures the key is
// blocked for base * 2^k seconds, up to `cap`: one address soon gets one guess per
// 15 minutes, many addresses together one guess a minute at a username; the real
// admin waits at most a minute on their username, and never from an address they
// logged in from before. See docs/api.md, "Login throttling".

/** How failures of one kind of key are throttled. */
export type ThrottleRule = { free: number; baseSeconds: number; capSeconds: number };

export const LOGIN_THROTTLE = {
  user: { free: 5, baseSeconds: 1, capSeconds: 60 },
  client: { free: 20, baseSeconds: 1, capSeconds: 900 },
  /** Failures are forgotten after this long without one (counted from the end of the last block). */
  quietSeconds: 3600,
  /** A client the admin logged in from this recently skips the username's throttle. */
  knownClientDays: 30,
} as const;

export type ThrottleRow = { key: string; failures: number; blocked_until: Date | null; last_failure_at: Date };
export type Attempt = { row: ThrottleRow } | { retryAfterSeconds: number };

/** One more attempt on `row` at `now`: the row to store, or how long the caller must wait first. */
export function countAttempt(row: ThrottleRow, rule: ThrottleRule, now: Date): Attempt {
  if (row.blocked_until && row.blocked_until > now) return { retryAfterSeconds: Math.ceil((row.blocked_until.getTime() - now.getTime()) / 1000) };
  const lastActivity = Math.max(row.last_failure_at.getTime(), row.blocked_until?.getTime() ?? 0);
  const quiet = now.getTime() - lastActivity > LOGIN_THROTTLE.quietSeconds * 1000;
  const failures = (quiet ? 0 : row.failures) + 1;
  const over = failures - rule.free;
  const blockSeconds = over > 0 ? Math.min(rule.baseSeconds * 2 ** Math.min(over - 1, 30), rule.capSeconds) : 0;
  return { row: { key: row.key, failures, blocked_until: blockSeconds > 0 ? new Date(now.getTime() + blockSeconds * 1000) : null, last_failure_at: now } };
}

const userKey = (username: string) => `user:${username}`;

// One IPv6 client usually holds a whole /64, so its addresses share one key; an IPv4 client is its address.
function clientKey(address: string): string {
  return `client:${isIPv6(address) ? ipv6Network64(address) : address}`;
}

const KNOWN_CLIENT = `
  SELECT EXISTS (
    SELECT 1 FROM admin_login_clients c JOIN admin_users u ON u.id = c.user_id
    WHERE u.username = $1 AND c.client = $2 AND c.last_login_at > $3
  ) AS known`;
const ENSURE_ROWS = `INSERT INTO login_throttles (key, failures, last_failure_at) SELECT unnest($1::text[]), 0, $2 ON CONFLICT (key) DO NOTHING`;
const LOCK_ROWS = `SELECT key, failures, blocked_until, last_failure_at FROM login_throttles WHERE key = ANY($1::text[]) ORDER BY key FOR UPDATE`;
const STORE_ROW = `UPDATE login_throttles SET failures = $2, blocked_until = $3, last_failure_at = $4 WHERE key = $1`;

// `address` is canonical (canonicalIp), so a client counts as one whatever socket family reported it.
async function throttledKeys(client: pg.PoolClient, username: string, address: string, now: Date): Promise<Map<string, ThrottleRule>> {
  const since = new Date(now.getTime() - LOGIN_THROTTLE.knownClientDays * 86400 * 1000);
  const { rows } = await client.query<{ known: boolean }>(KNOWN_CLIENT, [username, address, since]);
  const keys = new Map<string, ThrottleRule>([[clientKey(address), LOGIN_THROTTLE.client]]);
  if (!rows[0].known) keys.set(userKey(username), LOGIN_THROTTLE.user);
  return keys;
}

/**
 * Admits one login attempt for `username` from `address`, counting it as a failure
 * until it succeeds; throws TooManyRequestsError (429 with Retry-After) while the
 * username or the address is blocked, and then counts nothing.
 */
export async function admitLoginAttempt(pool: pg.Pool, username: string, clientIp: string, now = new Date()): Promise<void> {
  const address = canonicalIp(clientIp) ?? clientIp;
  await inTransaction(pool, async (client) => {
    const keys = await throttledKeys(client, username, address, now);
    await client.query(ENSURE_ROWS, [[...keys.keys()], now]);
    const { rows } = await client.query<ThrottleRow>(LOCK_ROWS, [[...keys.keys()]]);
    const attempts = rows.map((row) => countAttempt(row, keys.get(row.key)!, now));
    const waits = attempts.flatMap((attempt) => ('retryAfterSeconds' in attempt ? [attempt.retryAfterSeconds] : []));
    if (waits.length > 0) throw new TooManyRequestsError('too many failed logins', Math.max(...waits));
    for (const attempt of attempts) {
      const { row } = attempt as { row: ThrottleRow };
      await client.query(STORE_ROW, [row.key, row.failures, row.blocked_until, row.last_failure_at]);
    }
  });
}

/**
 * After a successful login: forgets the failures of the address, and of the username
 * unless the address was a known one (whose success says nothing of the others'
 * guesses); remembers the address as the admin's.
 */
export async function forgiveLoginAttempts(pool: pg.Pool, username: string, userId: string, clientIp: string, now = new Date()): Promise<void> {
  const address = canonicalIp(clientIp) ?? clientIp;
  await inTransaction(pool, async (client) => {
    const keys = await throttledKeys(client, username, address, now);
    await client.query('DELETE FROM login_throttles WHERE key = ANY($1::text[])', [[...keys.keys()]]);
  });
  await pool.query(
    `INSERT INTO admin_login_clients (user_id, client, last_login_at) VALUES ($1, $2, $3)
     ON CONFLICT (user_id, client) DO UPDATE SET last_login_at = EXCLUDED.last_login_at`,
    [userId, address, now],
  );
}

/** Deletes throttle rows with no block running and nothing recent, and login addresses unused for knownClientDays. */
export async function pruneLoginThrottles(pool: pg.Pool, now = new Date()): Promise<number> {
  const quietSince = new Date(now.getTime() - LOGIN_THROTTLE.quietSeconds * 1000);
  const knownSince = new Date(now.getTime() - LOGIN_THROTTLE.knownClientDays * 86400 * 1000);
  const throttles = await pool.query('DELETE FROM login_throttles WHERE GREATEST(last_failure_at, blocked_until) < $1', [quietSince]);
  const clients = await pool.query('DELETE FROM admin_login_clients WHERE last_login_at < $1', [knownSince]);
  return (throttles.rowCount ?? 0) + (clients.rowCount ?? 0);
}

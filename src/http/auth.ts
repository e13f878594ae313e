import type { Config } from '../config/load.js';
import type { Db } from '../db/client.js';
import { ANONYMOUS, API_TOKEN_ACTOR, type Actor } from './actor.js';
import { AuthError, ForbiddenError } from './errors.js';
import { hashToken, secretsEqual } from './tokens.js';

export type AuthLevel = 'public' | 'api' | 'admin-session' | 'edge';

function bearerOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!match) throw new AuthError('invalid authorization header', 'expected "Authorization: Bearer <token>"');
  return match[1];
}

async function sessionActor(db: Db, token: string, now: Date): Promise<Actor | undefined> {
  const session = await db.adminSession.findUnique({
    where: { token_hash: hashToken(token) },
    select: { id: true, expires_at: true, revoked_at: true, user: { select: { id: true, username: true, disabled: true } } },
  });
  if (!session || session.revoked_at || session.expires_at <= now || session.user.disabled) return undefined;
  return { type: 'admin', name: session.user.username, userId: session.user.id, sessionId: session.id };
}

/**
 * Resolves the caller from the Authorization header: the configured API token,
 * an admin session token, or (only when no API token is configured and no
 * bearer is sent) anonymous. A bearer that is sent but not valid is always 401.
 */
export async function resolveActor(header: string | undefined, config: Config, db: Db, now = new Date()): Promise<Actor> {
  const token = bearerOf(header);
  if (token === undefined) {
    if (config.apiToken) throw new AuthError('authentication required', 'send "Authorization: Bearer <token>"');
    return ANONYMOUS;
  }
  if (config.apiToken && secretsEqual(token, config.apiToken)) return API_TOKEN_ACTOR;
  const admin = await sessionActor(db, token, now);
  if (admin) return admin;
  throw new AuthError('invalid token', 'the bearer token is not the API token nor a live admin session');
}

/** Checks that `actor` may call a route of `level`. */
export function assertAllowed(actor: Actor, level: AuthLevel): void {
  if (level !== 'admin-session' || actor.type === 'admin') return;
  const detail = 'log in with POST /api/v1/admin/login and send the session token';
  // The API token is valid, just not enough here: 403. No credentials at all: 401, log in.
  if (actor.type === 'api-token') throw new ForbiddenError('admin session required', `the API token cannot call this endpoint; ${detail}`);
  throw new AuthError('admin session required', detail);
}

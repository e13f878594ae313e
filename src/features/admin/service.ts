import type { Db } from '../../db/client.js';
import { AuthError, ConflictError, NotFoundError, ValidationError } from '../../http/errors.js';
import { unixSeconds } from '../../http/timestamps.js';
import { hashToken, newToken } from '../../http/tokens.js';
import { DECOY_HASH, hashPassword, verifyPassword } from './passwords.js';

const USERNAME = /^[A-Za-z0-9._@-]{3,64}$/;
const MIN_PASSWORD = 8;
const MAX_PASSWORD = 1024;

type UserRow = { id: string; username: string; disabled: boolean; created_at: Date; updated_at: Date; last_login_at: Date | null };

/** The public shape of an admin user (never the hash). */
export function serializeAdmin(user: UserRow) {
  return {
    id: user.id,
    username: user.username,
    disabled: user.disabled,
    last_login_at: unixSeconds(user.last_login_at),
    created_at: unixSeconds(user.created_at),
    updated_at: unixSeconds(user.updated_at),
  };
}

export function checkUsername(username: string): void {
  if (!USERNAME.test(username)) throw new ValidationError('username', 'username must be 3-64 characters of letters, digits, ".", "_", "@" or "-"');
}

export function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD || password.length > MAX_PASSWORD) {
    throw new ValidationError('password', `password must be ${MIN_PASSWORD} to ${MAX_PASSWORD} characters`);
  }
}

/** Creates an admin; a taken username is a ConflictError. */
export async function createAdmin(db: Db, username: string, password: string) {
  checkUsername(username);
  checkPassword(password);
  if (await db.adminUser.findUnique({ where: { username } })) throw new ConflictError(`admin ${username} already exists`, 'username');
  return db.adminUser.create({ data: { username, password_hash: await hashPassword(password) } });
}

/** Every admin, oldest first. */
export async function listAdmins(db: Db) {
  return db.adminUser.findMany({ orderBy: { created_at: 'asc' } });
}

async function findAdmin(db: Db, username: string) {
  const user = await db.adminUser.findUnique({ where: { username } });
  if (!user) throw new NotFoundError('admin user', username);
  return user;
}

/** Sets a new password and revokes every session of the user. */
export async function resetPassword(db: Db, username: string, password: string, now = new Date()) {
  checkPassword(password);
  const user = await findAdmin(db, username);
  await db.adminSession.updateMany({ where: { user_id: user.id, revoked_at: null }, data: { revoked_at: now } });
  return db.adminUser.update({ where: { id: user.id }, data: { password_hash: await hashPassword(password), disabled: false } });
}

/** Disables the user and revokes its sessions; it can no longer log in. */
export async function disableAdmin(db: Db, username: string, now = new Date()) {
  const user = await findAdmin(db, username);
  await db.adminSession.updateMany({ where: { user_id: user.id, revoked_at: null }, data: { revoked_at: now } });
  return db.adminUser.update({ where: { id: user.id }, data: { disabled: true } });
}

/** Creates the bootstrap admin if it does not exist yet; returns whether it was created. */
export async function ensureBootstrapAdmin(db: Db, username: string, password: string): Promise<boolean> {
  if (await db.adminUser.findUnique({ where: { username } })) return false;
  await createAdmin(db, username, password);
  return true;
}

const LOGIN_FAILED = () => new AuthError('invalid username or password');

/** Checks credentials and opens a session; every failure is the same 401 whether or not the user exists. */
export async function login(db: Db, username: string, password: string, ttlSeconds: number, now = new Date()) {
  const user = await db.adminUser.findUnique({ where: { username } });
  const valid = await verifyPassword(password, user?.password_hash ?? DECOY_HASH);
  if (!user || !valid || user.disabled) throw LOGIN_FAILED();
  const token = newToken('cdnadm');
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
  await db.adminSession.create({ data: { user_id: user.id, token_hash: hashToken(token), expires_at: expiresAt } });
  const updated = await db.adminUser.update({ where: { id: user.id }, data: { last_login_at: now } });
  return { token, user: serializeAdmin(updated), expires_at: unixSeconds(expiresAt) };
}

/** Revokes one session. */
export async function logout(db: Db, sessionId: string, now = new Date()): Promise<void> {
  await db.adminSession.update({ where: { id: sessionId }, data: { revoked_at: now } });
}

/** The user behind a session, with the session's expiry. */
export async function currentAdmin(db: Db, sessionId: string) {
  const session = await db.adminSession.findUniqueOrThrow({ where: { id: sessionId }, include: { user: true } });
  return { user: serializeAdmin(session.user), session: { id: session.id, expires_at: unixSeconds(session.expires_at), created_at: unixSeconds(session.created_at) } };
}

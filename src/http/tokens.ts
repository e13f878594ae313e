import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Hex SHA-256 of a token: what is stored instead of the token itself. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A new random bearer token with a readable prefix saying what it is for. */
export function newToken(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/** Compares two secrets in constant time (hashing first, so lengths leak nothing). */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

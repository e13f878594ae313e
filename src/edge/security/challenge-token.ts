import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

// Challenge tokens and clearances are HMAC-SHA256 signed with CDN_EDGE_CLEARANCE_SECRET
// and bound to the domain, the client address, the level and an expiry, so an edge
// keeps no state and any edge sharing the secret accepts what another issued. Each
// kind signs under its own label, so a token's signature never passes as a clearance.
//   challenge token: v1.<level>.<expires>.<random>.<signature>   (in the page)
//   clearance:       <level>.<expires>.<signature>               (the cookie value)
// Domain and address are not written out: they are only inside the signature.

/** Zero bits a level-N proof of work needs (level 1 needs none: it is the browser check). */
export const PROOF_OF_WORK_BITS: Readonly<Record<number, number>> = { 1: 0, 2: 10, 3: 12, 4: 14, 5: 16, 6: 18 };

/** How long a challenge page may take to be solved, in seconds. */
export const CHALLENGE_TTL_SECONDS = 300;

/** Who a token or clearance is for. */
export type Binding = { domainId: string; clientIp: string };

const TOKEN = /^v1\.([1-6])\.(\d{1,12})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{43})$/;
const CLEARANCE = /^([1-6])\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;
const DECIMAL_NONCE = /^\d{1,16}$/;
const HEX_NONCE = /^[0-9a-f]{64}$/;

function sign(secret: string, label: string, binding: Binding, fields: string[]): string {
  return createHmac('sha256', secret).update([label, binding.domainId, binding.clientIp, ...fields].join('\n')).digest('base64url');
}

function signatureMatches(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A fresh signed challenge token for `binding` at `level`, valid CHALLENGE_TTL_SECONDS from `nowMs`. */
export function issueChallengeToken(secret: string, binding: Binding, level: number, nowMs: number): string {
  const expires = String(Math.floor(nowMs / 1000) + CHALLENGE_TTL_SECONDS);
  const random = randomBytes(12).toString('base64url');
  return `v1.${level}.${expires}.${random}.${sign(secret, 'challenge', binding, [String(level), expires, random])}`;
}

/** The level of a token issued for `binding` and not expired, else why not ('malformed', 'expired' or 'bad signature'). */
export function checkChallengeToken(secret: string, binding: Binding, token: string, nowMs: number): { level: number } | { problem: string } {
  const parts = TOKEN.exec(token);
  if (!parts) return { problem: 'malformed' };
  const [, level, expires, random, given] = parts;
  if (!signatureMatches(sign(secret, 'challenge', binding, [level, expires, random]), given)) return { problem: 'bad signature' };
  if (Number(expires) * 1000 <= nowMs) return { problem: 'expired' };
  return { level: Number(level) };
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function leadingZeroBits(digest: Buffer, bits: number): boolean {
  let index = 0;
  for (let need = bits; need > 0; need -= 8, index++) {
    const mask = need >= 8 ? 0xff : (0xff << (8 - need)) & 0xff;
    if ((digest[index] & mask) !== 0) return false;
  }
  return true;
}

/** True when `nonce` solves `token` at `level`: level 1 the token's hex SHA-256, else SHA-256(token + nonce) with the level's zero bits. */
export function solvesChallenge(token: string, level: number, nonce: string): boolean {
  const bits = PROOF_OF_WORK_BITS[level];
  if (bits === undefined) return false;
  if (bits === 0) return HEX_NONCE.test(nonce) && signatureMatches(sha256(token).toString('hex'), nonce);
  return DECIMAL_NONCE.test(nonce) && leadingZeroBits(sha256(token + nonce), bits);
}

/** A clearance cookie value for `binding` at `level`, valid `ttlSeconds` from `nowMs`. */
export function issueClearance(secret: string, binding: Binding, level: number, ttlSeconds: number, nowMs: number): string {
  const expires = String(Math.floor(nowMs / 1000) + ttlSeconds);
  return `${level}.${expires}.${sign(secret, 'clearance', binding, [String(level), expires])}`;
}

/** True when `value` is a clearance issued for `binding`, not expired, of level `level` or higher. */
export function clearanceSatisfies(secret: string, binding: Binding, value: string | undefined, level: number, nowMs: number): boolean {
  if (!value) return false;
  const parts = CLEARANCE.exec(value);
  if (!parts) return false;
  const [, given, expires, signature] = parts;
  if (Number(given) < level || Number(expires) * 1000 <= nowMs) return false;
  return signatureMatches(sign(secret, 'clearance', binding, [given, expires]), signature);
}

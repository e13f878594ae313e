import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

// Edge request signing, shared by the edge agent (signs) and the core (verifies).
// See docs/edge-protocol.md for the canonical string and a worked example.

export const EDGE_HEADERS = {
  edgeId: 'x-cdn-edge-id',
  timestamp: 'x-cdn-timestamp',
  nonce: 'x-cdn-nonce',
  signature: 'x-cdn-signature',
} as const;

/** Hex SHA-256 of a body (the empty string for no body). */
export function bodyHash(body: Buffer | string): string {
  return createHash('sha256').update(body).digest('hex');
}

/** The signing key of an edge token: SHA-256 of the token (what the core stores to look the token up). */
export function signingKey(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** METHOD, path with query, timestamp, nonce and body hash, one per line. */
export function canonicalString(method: string, pathWithQuery: string, timestamp: number, nonce: string, body: Buffer | string): string {
  return [method.toUpperCase(), pathWithQuery, String(timestamp), nonce, bodyHash(body)].join('\n');
}

/** Hex HMAC-SHA256 of the canonical string with the token's signing key. */
export function signature(key: string, canonical: string): string {
  return createHmac('sha256', key).update(canonical).digest('hex');
}

/** Constant-time comparison of two hex signatures. */
export function signaturesMatch(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'hex');
  const b = Buffer.from(given, 'hex');
  return a.length === b.length && a.length > 0 && timingSafeEqual(a, b);
}

/** The headers an edge sends with a request (besides the body). */
export function signedHeaders(options: { token: string; edgeId: string; method: string; pathWithQuery: string; body?: Buffer | string; now?: number; nonce?: string }): Record<string, string> {
  const timestamp = options.now ?? Math.floor(Date.now() / 1000);
  const nonce = options.nonce ?? randomBytes(16).toString('hex');
  const canonical = canonicalString(options.method, options.pathWithQuery, timestamp, nonce, options.body ?? '');
  return {
    authorization: `Bearer ${options.token}`,
    [EDGE_HEADERS.edgeId]: options.edgeId,
    [EDGE_HEADERS.timestamp]: String(timestamp),
    [EDGE_HEADERS.nonce]: nonce,
    [EDGE_HEADERS.signature]: signature(signingKey(options.token), canonical),
  };
}

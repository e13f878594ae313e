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

/**
 * The signing key of an edge token: the lower-case hex text (64 ASCII characters)
 * of the token's SHA-256, what the core stores to look the token up. The HMAC key
 * is that text's bytes, not the 32 raw digest bytes.
 */
export function signingKey(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** What a request is signed over, besides the key. */
export type SignedParts = { method: string; pathWithQuery: string; timestamp: number; nonce: string; edgeId: string; body: Buffer | string };

/**
 * METHOD, path with query, timestamp, nonce, edge id and body hash, one per line.
 * The edge id is signed so that a request captured from one edge cannot be
 * replayed in another edge's name with a token they share.
 */
export function canonicalString(parts: SignedParts): string {
  return [parts.method.toUpperCase(), parts.pathWithQuery, String(parts.timestamp), parts.nonce, parts.edgeId, bodyHash(parts.body)].join('\n');
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

/** The headers an edge sends with a request (besides the body); `body` is the bytes it sends, compressed if it compresses. */
export function signedHeaders(options: { token: string; edgeId: string; method: string; pathWithQuery: string; body?: Buffer | string; now?: number; nonce?: string }): Record<string, string> {
  const timestamp = options.now ?? Math.floor(Date.now() / 1000);
  const nonce = options.nonce ?? randomBytes(16).toString('hex');
  const canonical = canonicalString({ method: options.method, pathWithQuery: options.pathWithQuery, timestamp, nonce, edgeId: options.edgeId, body: options.body ?? '' });
  return {
    authorization: `Bearer ${options.token}`,
    [EDGE_HEADERS.edgeId]: options.edgeId,
    [EDGE_HEADERS.timestamp]: String(timestamp),
    [EDGE_HEADERS.nonce]: nonce,
    [EDGE_HEADERS.signature]: signature(signingKey(options.token), canonical),
  };
}

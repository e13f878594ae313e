import type { Config } from '../../config/load.js';
import type { Db } from '../../db/client.js';
import type { Actor } from '../../http/actor.js';
import { AuthError } from '../../http/errors.js';
import { hashToken } from '../../http/tokens.js';
import { canonicalString, EDGE_HEADERS, signature, signaturesMatch } from '../../shared/signing.js';

export type EdgeRequest = { method: string; pathWithQuery: string; headers: Record<string, string | undefined>; rawBody: Buffer };

const NONCE = /^[A-Za-z0-9_-]{16,128}$/;

function header(request: EdgeRequest, name: string): string {
  const value = request.headers[name];
  if (!value) throw new AuthError('edge authentication failed', `missing ${name} header`);
  return value;
}

async function tokenOf(db: Db, request: EdgeRequest) {
  const match = /^Bearer[ ]+(\S+)$/i.exec(request.headers.authorization ?? '');
  if (!match) throw new AuthError('edge authentication failed', 'missing bearer edge token');
  const token = await db.edgeToken.findUnique({ where: { token_hash: hashToken(match[1]) } });
  if (!token) throw new AuthError('edge authentication failed', 'unknown edge token');
  if (token.revoked_at) throw new AuthError('edge authentication failed', 'the edge token is revoked');
  return token;
}

/**
 * Authenticates a signed edge request: a live bearer edge token, an edge id the
 * token may speak for, a timestamp within the allowed skew, a valid HMAC
 * signature of the canonical string, and a nonce not seen within the window
 * (stored, so a replay is refused). Every failure is an AuthError (401).
 */
export async function verifyEdgeRequest(db: Db, config: Config, request: EdgeRequest, now = new Date()): Promise<Actor> {
  const token = await tokenOf(db, request);
  const edgeId = header(request, EDGE_HEADERS.edgeId);
  if (token.edge_id && token.edge_id !== edgeId) throw new AuthError('edge authentication failed', `this token is bound to edge ${token.edge_id}, not ${edgeId}`);
  const timestampText = header(request, EDGE_HEADERS.timestamp);
  const timestamp = Number(timestampText);
  if (!/^\d{1,12}$/.test(timestampText)) throw new AuthError('edge authentication failed', `${EDGE_HEADERS.timestamp} must be unix seconds`);
  const skew = Math.abs(now.getTime() / 1000 - timestamp);
  if (skew > config.edgeSignatureMaxSkewSeconds) throw new AuthError('edge authentication failed', `timestamp is ${Math.round(skew)} s away from the core clock (allowed ${config.edgeSignatureMaxSkewSeconds} s)`);
  const nonce = header(request, EDGE_HEADERS.nonce);
  if (!NONCE.test(nonce)) throw new AuthError('edge authentication failed', `${EDGE_HEADERS.nonce} must be 16-128 URL-safe characters`);
  const expected = signature(token.token_hash, canonicalString(request.method, request.pathWithQuery, timestamp, nonce, request.rawBody));
  if (!signaturesMatch(expected, header(request, EDGE_HEADERS.signature))) throw new AuthError('edge authentication failed', 'bad signature');
  const stored = await db.edgeNonce.createMany({
    data: [{ edge_id: edgeId, nonce, expires_at: new Date((timestamp + config.edgeSignatureMaxSkewSeconds) * 1000) }],
    skipDuplicates: true,
  });
  if (stored.count === 0) throw new AuthError('edge authentication failed', 'nonce already used (replayed request)');
  await db.edgeToken.update({ where: { id: token.id }, data: { last_used_at: now } });
  return { type: 'edge', name: `edge:${edgeId}`, edgeId, tokenId: token.id };
}

/** Deletes nonces whose replay window has passed; returns how many. */
export async function pruneNonces(db: Db, now = new Date()): Promise<number> {
  return (await db.edgeNonce.deleteMany({ where: { expires_at: { lt: now } } })).count;
}

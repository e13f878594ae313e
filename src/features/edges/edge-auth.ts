import type pg from 'pg';
import type { Config } from '../../config/load.js';
import type { Db } from '../../db/client.js';
import type { Actor } from '../../http/actor.js';
import { AuthError } from '../../http/errors.js';
import { hashToken } from '../../http/tokens.js';
import { canonicalString, EDGE_HEADERS, signature, signaturesMatch } from '../../shared/signing.js';

export type EdgeRequest = { method: string; pathWithQuery: string; headers: Record<string, string | undefined>; rawBody: Buffer };

const NONCE = /^[A-Za-z0-9_-]{16,128}$/;
// last_used_at is written at most this often per token, so edges sharing a token do not queue on its row.
const LAST_USED_RESOLUTION = '60 seconds';

// One round trip, prepared once per connection: the token, and (only when every local check passed) the nonce insert that refuses replays.
const CHECK_TOKEN_AND_NONCE = `
  WITH token AS (
    SELECT id, edge_id, revoked_at FROM edge_tokens WHERE token_hash = $1
  ), usable AS (
    SELECT id FROM token WHERE $5::boolean AND revoked_at IS NULL AND (edge_id IS NULL OR edge_id = $2)
  ), fresh AS (
    INSERT INTO edge_nonces (edge_id, nonce, expires_at)
    SELECT $2, $3, $4 FROM usable
    ON CONFLICT DO NOTHING
    RETURNING 1
  ), touched AS (
    UPDATE edge_tokens SET last_used_at = $6 FROM usable
    WHERE edge_tokens.id = usable.id AND (edge_tokens.last_used_at IS NULL OR edge_tokens.last_used_at < $6::timestamptz - interval '${LAST_USED_RESOLUTION}')
    RETURNING 1
  )
  SELECT id, edge_id, revoked_at IS NOT NULL AS revoked, EXISTS (SELECT 1 FROM fresh) AS fresh FROM token`;

type TokenCheck = { id: string; edge_id: string | null; revoked: boolean; fresh: boolean };
type Claims = { edgeId: string | undefined; nonce: string; expiresAt: Date; problem: string | undefined };

function failure(detail: string): AuthError {
  return new AuthError('edge authentication failed', detail);
}

function bearerToken(request: EdgeRequest): string {
  const match = /^Bearer[ ]+(\S+)$/i.exec(request.headers.authorization ?? '');
  if (!match) throw failure('missing bearer edge token');
  return match[1];
}

// Every check that needs no database: headers, skew, nonce shape and the signature itself.
function readClaims(request: EdgeRequest, config: Config, now: Date, key: string): Claims {
  const edgeId = request.headers[EDGE_HEADERS.edgeId] || undefined;
  const timestampText = request.headers[EDGE_HEADERS.timestamp] ?? '';
  const nonce = request.headers[EDGE_HEADERS.nonce] ?? '';
  const given = request.headers[EDGE_HEADERS.signature] ?? '';
  const timestamp = Number(timestampText);
  const expiresAt = Number.isFinite(timestamp) ? new Date((timestamp + config.edgeSignatureMaxSkewSeconds) * 1000) : now;
  const claims = { edgeId, nonce, expiresAt };
  const problem = (): string | undefined => {
    if (!edgeId) return `missing ${EDGE_HEADERS.edgeId} header`;
    if (!timestampText) return `missing ${EDGE_HEADERS.timestamp} header`;
    if (!/^\d{1,12}$/.test(timestampText)) return `${EDGE_HEADERS.timestamp} must be unix seconds`;
    const skew = Math.abs(now.getTime() / 1000 - timestamp);
    if (skew > config.edgeSignatureMaxSkewSeconds) return `timestamp is ${Math.round(skew)} s away from the core clock (allowed ${config.edgeSignatureMaxSkewSeconds} s)`;
    if (!nonce) return `missing ${EDGE_HEADERS.nonce} header`;
    if (!NONCE.test(nonce)) return `${EDGE_HEADERS.nonce} must be 16-128 URL-safe characters`;
    if (!given) return `missing ${EDGE_HEADERS.signature} header`;
    const expected = signature(key, canonicalString(request.method, request.pathWithQuery, timestamp, nonce, request.rawBody));
    return signaturesMatch(expected, given) ? undefined : 'bad signature';
  };
  return { ...claims, problem: problem() };
}

/**
 * Authenticates a signed edge request: a live bearer edge token, an edge id the
 * token may speak for, a timestamp within the allowed skew, a valid HMAC
 * signature of the canonical string, and a nonce not seen within the window
 * (stored, so a replay is refused). The signature is checked before the database
 * is asked; the token, revocation and nonce are one statement. Every failure is
 * an AuthError (401).
 */
export async function verifyEdgeRequest(pool: pg.Pool, config: Config, request: EdgeRequest, now = new Date()): Promise<Actor> {
  const tokenHash = hashToken(bearerToken(request));
  const claims = readClaims(request, config, now, tokenHash);
  const verified = claims.problem === undefined;
  const result = await pool.query<TokenCheck>({ name: 'edge-auth', text: CHECK_TOKEN_AND_NONCE, values: [tokenHash, claims.edgeId ?? '', claims.nonce, claims.expiresAt, verified, now] });
  const token = result.rows[0];
  if (!token) throw failure('unknown edge token');
  if (token.revoked) throw failure('the edge token is revoked');
  if (!claims.edgeId) throw failure(`missing ${EDGE_HEADERS.edgeId} header`);
  if (token.edge_id && token.edge_id !== claims.edgeId) throw failure(`this token is bound to edge ${token.edge_id}, not ${claims.edgeId}`);
  if (claims.problem) throw failure(claims.problem);
  if (!token.fresh) throw failure('nonce already used (replayed request)');
  return { type: 'edge', name: `edge:${claims.edgeId}`, edgeId: claims.edgeId, tokenId: token.id };
}

/** Deletes nonces whose replay window has passed; returns how many. */
export async function pruneNonces(db: Db, now = new Date()): Promise<number> {
  return (await db.edgeNonce.deleteMany({ where: { expires_at: { lt: now } } })).count;
}

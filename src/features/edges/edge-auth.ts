import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../../config/load.js';
import type { Db } from '../../db/client.js';
import type { Actor } from '../../http/actor.js';
import { AuthError } from '../../http/errors.js';
import { hashToken } from '../../http/tokens.js';
import { canonicalString, EDGE_HEADERS, signature, signaturesMatch } from '../../shared/signing.js';
import { restartReplayMemory, signedBeforeRestart } from './replay-memory.js';

export type EdgeRequest = { method: string; pathWithQuery: string; headers: Record<string, string | undefined>; rawBody: Buffer };

const NONCE = /^[A-Za-z0-9_-]{16,128}$/;
const EDGE_ID = /^[A-Za-z0-9._-]{1,128}$/;
// last_used_at is written at most this often per token, so edges sharing a token do not queue on its row.
const LAST_USED_RESOLUTION = '60 seconds';

// One round trip, prepared once per connection: the token, and (only when every local check passed
// and the replay memory is complete since before the request was signed) the nonce insert that refuses replays.
// Nonces are remembered per token, not per edge id: the edges that share a token share its nonces.
const CHECK_TOKEN_AND_NONCE = `
  WITH memory AS (
    SELECT complete_since FROM edge_nonce_memory WHERE id = 1
  ), token AS (
    SELECT id, edge_id, revoked_at FROM edge_tokens WHERE token_hash = $1
  ), usable AS (
    SELECT id FROM token WHERE $5::boolean AND revoked_at IS NULL AND (edge_id IS NULL OR edge_id = $2)
      AND $7::timestamptz >= (SELECT complete_since FROM memory)
  ), fresh AS (
    INSERT INTO edge_nonces (token_id, nonce, expires_at)
    SELECT id, $3, $4 FROM usable
    ON CONFLICT DO NOTHING
    RETURNING 1
  ), touched AS (
    UPDATE edge_tokens SET last_used_at = $6 FROM usable
    WHERE edge_tokens.id = usable.id AND (edge_tokens.last_used_at IS NULL OR edge_tokens.last_used_at < $6::timestamptz - interval '${LAST_USED_RESOLUTION}')
    RETURNING 1
  )
  SELECT id, edge_id, revoked_at IS NOT NULL AS revoked, EXISTS (SELECT 1 FROM fresh) AS fresh, (SELECT complete_since FROM memory) AS complete_since FROM token`;

type TokenCheck = { id: string; edge_id: string | null; revoked: boolean; fresh: boolean; complete_since: Date | null };
type Claims = { edgeId: string; nonce: string; signedAt: Date; expiresAt: Date; problem: string | undefined };

function failure(detail: string): AuthError {
  return new AuthError('edge authentication failed', detail);
}

function bearerToken(request: EdgeRequest): string {
  const match = /^Bearer[ ]+(\S+)$/i.exec(request.headers.authorization ?? '');
  if (!match) throw failure('missing bearer edge token');
  return match[1];
}

// The edge id is checked before anything else: it goes into the database query and the actor's name.
function edgeIdOf(request: EdgeRequest): string {
  const edgeId = request.headers[EDGE_HEADERS.edgeId];
  if (!edgeId) throw failure(`missing ${EDGE_HEADERS.edgeId} header`);
  if (!EDGE_ID.test(edgeId)) throw failure(`${EDGE_HEADERS.edgeId} must be 1-128 of A-Z a-z 0-9 . _ -`);
  return edgeId;
}

// Every other check that needs no database: headers, skew, nonce shape and the signature itself.
function readClaims(request: EdgeRequest, config: Config, now: Date, key: string): Claims {
  const edgeId = edgeIdOf(request);
  const timestampText = request.headers[EDGE_HEADERS.timestamp] ?? '';
  const nonce = request.headers[EDGE_HEADERS.nonce] ?? '';
  const given = request.headers[EDGE_HEADERS.signature] ?? '';
  const timestamp = Number(timestampText);
  const signedAt = Number.isFinite(timestamp) ? new Date(timestamp * 1000) : now;
  const expiresAt = new Date(signedAt.getTime() + config.edgeSignatureMaxSkewSeconds * 1000);
  const claims = { edgeId, nonce, signedAt, expiresAt };
  const problem = (): string | undefined => {
    if (!timestampText) return `missing ${EDGE_HEADERS.timestamp} header`;
    if (!/^\d{1,12}$/.test(timestampText)) return `${EDGE_HEADERS.timestamp} must be unix seconds`;
    const skew = Math.abs(now.getTime() / 1000 - timestamp);
    if (skew > config.edgeSignatureMaxSkewSeconds) return `timestamp is ${Math.round(skew)} s away from the core clock (allowed ${config.edgeSignatureMaxSkewSeconds} s)`;
    if (!nonce) return `missing ${EDGE_HEADERS.nonce} header`;
    if (!NONCE.test(nonce)) return `${EDGE_HEADERS.nonce} must be 16-128 of A-Z a-z 0-9 _ -`;
    if (!given) return `missing ${EDGE_HEADERS.signature} header`;
    const expected = signature(key, canonicalString({ method: request.method, pathWithQuery: request.pathWithQuery, timestamp, nonce, edgeId, body: request.rawBody }));
    return signaturesMatch(expected, given) ? undefined : 'bad signature';
  };
  return { ...claims, problem: problem() };
}

async function checkTokenAndNonce(pool: pg.Pool, tokenHash: string, claims: Claims, now: Date): Promise<TokenCheck | undefined> {
  const values = [tokenHash, claims.edgeId, claims.nonce, claims.expiresAt, claims.problem === undefined, now, claims.signedAt];
  return (await pool.query<TokenCheck>({ name: 'edge-auth', text: CHECK_TOKEN_AND_NONCE, values })).rows[0];
}

/**
 * Authenticates a signed edge request: a live bearer edge token, a well-formed
 * edge id the token may speak for, a timestamp within the allowed skew, a valid
 * HMAC signature of the canonical string (which covers the edge id), and a nonce
 * this token has not used within the window (stored, so a replay is refused).
 * The edge id and signature are checked before the database is asked; the
 * token, revocation and nonce are one statement. A request signed before the
 * replay memory last restarted is refused too (replay-memory.ts). Every failure
 * is an AuthError (401).
 */
export async function verifyEdgeRequest(pool: pg.Pool, config: Config, request: EdgeRequest, options: { now?: Date; log?: Logger } = {}): Promise<Actor> {
  const now = options.now ?? new Date();
  const tokenHash = hashToken(bearerToken(request));
  const claims = readClaims(request, config, now, tokenHash);
  let token = await checkTokenAndNonce(pool, tokenHash, claims, now);
  if (token && token.complete_since === null && claims.problem === undefined) {
    await restartReplayMemory(pool, options.log);
    token = await checkTokenAndNonce(pool, tokenHash, claims, now);
  }
  if (!token) throw failure('unknown edge token');
  if (token.revoked) throw failure('the edge token is revoked');
  if (token.edge_id && token.edge_id !== claims.edgeId) throw failure(`this token is bound to edge ${token.edge_id}, not ${claims.edgeId}`);
  if (claims.problem) throw failure(claims.problem);
  if (!token.complete_since || claims.signedAt < token.complete_since) throw failure(signedBeforeRestart(token.complete_since ?? now));
  if (!token.fresh) throw failure('nonce already used (replayed request)');
  return { type: 'edge', name: `edge:${claims.edgeId}`, edgeId: claims.edgeId, tokenId: token.id };
}

/** Deletes nonces whose replay window has passed; returns how many. */
export async function pruneNonces(db: Db, now = new Date()): Promise<number> {
  return (await db.edgeNonce.deleteMany({ where: { expires_at: { lt: now } } })).count;
}

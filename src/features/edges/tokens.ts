import type { Db } from '../../db/client.js';
import { NotFoundError, ValidationError } from '../../http/errors.js';
import { unixSeconds } from '../../http/timestamps.js';
import { hashToken, newToken } from '../../http/tokens.js';

type TokenRow = { id: string; name: string; token_prefix: string; edge_id: string | null; bootstrap: boolean; last_used_at: Date | null; revoked_at: Date | null; created_at: Date };

/** The public shape of an edge token (never the token or its hash). */
export function serializeEdgeToken(row: TokenRow) {
  return {
    id: row.id,
    name: row.name,
    prefix: row.token_prefix,
    edge_id: row.edge_id,
    bootstrap: row.bootstrap,
    revoked: row.revoked_at !== null,
    last_used_at: unixSeconds(row.last_used_at),
    revoked_at: unixSeconds(row.revoked_at),
    created_at: unixSeconds(row.created_at),
  };
}

/** Creates a token, optionally bound to one edge id; returns the token once, with its record. */
export async function createEdgeToken(db: Db, name: string, edgeId?: string) {
  if (edgeId !== undefined && !/^[A-Za-z0-9._-]{1,128}$/.test(edgeId)) throw new ValidationError('edge_id', 'an edge id is 1-128 letters, digits, ".", "_" or "-"');
  const token = newToken('cdnedge');
  const row = await db.edgeToken.create({ data: { name, token_hash: hashToken(token), token_prefix: token.slice(0, 14), edge_id: edgeId ?? null } });
  return { token, record: serializeEdgeToken(row) };
}

/** Every token, newest first. */
export async function listEdgeTokens(db: Db) {
  return (await db.edgeToken.findMany({ orderBy: { created_at: 'desc' } })).map(serializeEdgeToken);
}

/** Revokes a token by id or by its printed prefix; revoked tokens are refused at once. */
export async function revokeEdgeToken(db: Db, idOrPrefix: string, now = new Date()) {
  const row = await db.edgeToken.findFirst({ where: { OR: [{ id: idOrPrefix }, { token_prefix: idOrPrefix }] } });
  if (!row) throw new NotFoundError('edge token', idOrPrefix);
  return serializeEdgeToken(await db.edgeToken.update({ where: { id: row.id }, data: { revoked_at: row.revoked_at ?? now } }));
}

/** Registers CDN_BOOTSTRAP_EDGE_TOKEN (unless "0") so local edges can connect; returns whether it was added. */
export async function ensureBootstrapEdgeToken(db: Db, token: string | undefined): Promise<boolean> {
  if (!token || token === '0') return false;
  const hash = hashToken(token);
  if (await db.edgeToken.findUnique({ where: { token_hash: hash } })) return false;
  await db.edgeToken.create({ data: { name: 'bootstrap', token_hash: hash, token_prefix: token.slice(0, 14), bootstrap: true } });
  return true;
}

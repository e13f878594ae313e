import type { Db } from '../../db/client.js';
import { insertNewRows } from '../../db/insert-rows.js';
import { sqlOf } from '../../db/sql.js';
import { lockDomainWrites } from '../../db/write-lock.js';
import { NotFoundError, ValidationError } from '../../http/errors.js';
import { createMany } from '../../http/create-many.js';
import { onlyItem } from '../../http/route.js';
import type { Paging } from '../../http/paging.js';
import { unixSeconds } from '../../http/timestamps.js';
import { isIP } from 'node:net';
import { CONTROL_CHARACTERS_DETAIL, hasControlCharacter } from '../../shared/control-characters.js';
import { normalizeHostname } from '../../shared/hostnames.js';
import { assertDomainExists } from '../domains/service.js';
import { probeOrigin } from './probe.js';

export type OriginInput = Record<string, unknown> & { host?: string; scheme?: 'http' | 'https'; port?: number; host_header?: string | null };
type OriginRow = Awaited<ReturnType<Db['origin']['findFirstOrThrow']>>;

const DEFAULT_PORT = { http: 80, https: 443 } as const;

/** The API shape of an origin: every column, timestamps as unix seconds. */
export function serializeOrigin(row: OriginRow) {
  return {
    ...row,
    health_changed_at: unixSeconds(row.health_changed_at),
    created_at: unixSeconds(row.created_at),
    updated_at: unixSeconds(row.updated_at),
  };
}

function normalizeOriginHost(host: string, field: string): string {
  if (hasControlCharacter(host)) throw new ValidationError(field, `${field} ${CONTROL_CHARACTERS_DETAIL}`);
  const trimmed = host.trim().replace(/^\[(.*)\]$/, '$1');
  if (isIP(trimmed)) return trimmed.toLowerCase();
  const name = normalizeHostname(trimmed);
  if (!name) throw new ValidationError(field, `${JSON.stringify(host)} is not a hostname or IP address`);
  return name;
}

/** An origin's host and host_header checked and in canonical form (422 otherwise). */
export function normalizeInput(input: OriginInput): OriginInput {
  const data: OriginInput = { ...input };
  if (input.host !== undefined) data.host = normalizeOriginHost(input.host, 'host');
  if (typeof input.host_header === 'string') data.host_header = normalizeOriginHost(input.host_header, 'host_header');
  return data;
}

async function assertIdentityFree(db: Db, domainId: string, identity: Identity, exceptId?: string) {
  const twin = await db.origin.findFirst({
    where: { domain_id: domainId, host: identity.host, port: identity.port, scheme: identity.scheme as 'http' | 'https', ...(exceptId ? { id: { not: exceptId } } : {}) },
    select: { id: true },
  });
  if (twin) throw duplicateOrigin(identity);
}

// Serializes the domain's origin writes so the identity check sees every committed origin (inside the transaction).
async function lockOriginWrites(db: Db, domainId: string): Promise<void> {
  await lockDomainWrites(db, domainId, 'origins');
}

async function findOrigin(db: Db, domainId: string, originId: string) {
  await assertDomainExists(db, domainId);
  const row = await db.origin.findFirst({ where: { id: originId, domain_id: domainId } });
  if (!row) throw new NotFoundError('origin', originId);
  return row;
}

/** A page of the domain's origins: primaries first, then by creation. */
export async function listOrigins(db: Db, domainId: string, paging: Paging) {
  await assertDomainExists(db, domainId);
  const rows = await db.origin.findMany({
    where: { domain_id: domainId },
    orderBy: [{ role: 'asc' }, { created_at: 'asc' }],
    skip: paging.offset,
    take: paging.limit,
  });
  return rows.map(serializeOrigin);
}

type Identity = { scheme: string; host: string; port: number };

// The stored form of a new origin: checked host, the port from the scheme when none is given.
function newOrigin(input: OriginInput): OriginInput & Identity {
  if (input.host === undefined) throw new ValidationError('host', 'host is required');
  const data = normalizeInput(input);
  const scheme = data.scheme ?? 'https';
  return { ...data, host: data.host!, scheme, port: data.port ?? DEFAULT_PORT[scheme] };
}

function duplicateOrigin(identity: Identity): ValidationError {
  return new ValidationError('host', `origin ${identity.scheme}://${identity.host}:${identity.port} already exists for this domain`, 'duplicate origin');
}

/** Creates an origin; host is required, the port defaults from the scheme; (scheme, host, port) is unique per domain. */
export async function createOrigin(db: Db, domainId: string, input: OriginInput) {
  return onlyItem(createOrigins(db, domainId, [input]));
}

const identityKey = (identity: Identity) => `${identity.scheme}://${identity.host}:${identity.port}`;

/**
 * Creates several origins as createOrigin would one after the other, in one insert that also
 * finds identities already taken. A refused origin is thrown as an ItemError with its index.
 */
export async function createOrigins(db: Db, domainId: string, inputs: OriginInput[]) {
  await lockOriginWrites(db, domainId);
  await assertDomainExists(db, domainId);
  const sql = sqlOf(db);
  const rows = await createMany(
    {
      check: (input: OriginInput) => ({ ...newOrigin(input), domain_id: domainId }),
      keyOf: (row) => identityKey(row as Identity),
      duplicate: (row) => duplicateOrigin(row as Identity),
      storedKeys: async () => {
        const { rows: identities } = await sql.query<Identity>('SELECT scheme::text AS scheme, host, port FROM origins WHERE domain_id = $1', [domainId]);
        return new Set(identities.map(identityKey));
      },
      insertNew: (candidates) => insertNewRows(sql, 'origins', candidates),
    },
    inputs,
  );
  return rows.map((row) => serializeOrigin(row as OriginRow));
}

/** Applies a partial update; the identity must stay unique. */
export async function updateOrigin(db: Db, domainId: string, originId: string, patch: OriginInput) {
  await lockOriginWrites(db, domainId);
  const current = await findOrigin(db, domainId, originId);
  const data = normalizeInput(patch);
  const identity = { scheme: data.scheme ?? current.scheme, host: data.host ?? current.host, port: data.port ?? current.port };
  await assertIdentityFree(db, domainId, identity, originId);
  const row = await db.origin.update({ where: { id: originId }, data: data as never });
  return serializeOrigin(row);
}

/** Deletes one origin. */
export async function deleteOrigin(db: Db, domainId: string, originId: string): Promise<void> {
  await findOrigin(db, domainId, originId);
  await db.origin.delete({ where: { id: originId } });
}

/** Probes the origin now and reports what it saw. Diagnostic only: health_status is not changed. */
export async function checkOrigin(db: Db, domainId: string, originId: string, timeoutMs: number, now = new Date()) {
  const origin = await findOrigin(db, domainId, originId);
  const domain = await assertDomainExists(db, domainId);
  const report = await probeOrigin(
    { host: origin.host, port: origin.port, scheme: origin.scheme, path: origin.health_check_path, hostHeader: origin.host_header ?? domain.domain },
    timeoutMs,
  );
  return { origin_id: origin.id, target: `${origin.scheme}://${origin.host}:${origin.port}${origin.health_check_path}`, checked_at: unixSeconds(now), ...report };
}

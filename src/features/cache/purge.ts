import type { Db } from '../../db/client.js';
import type { Actor } from '../../http/actor.js';
import { NotFoundError, ValidationError } from '../../http/errors.js';
import type { Paging } from '../../http/paging.js';
import { unixSeconds } from '../../http/timestamps.js';
import { normalizeHostname } from '../../shared/hostnames.js';
import { assertDomainExists } from '../domains/service.js';

export type PurgeInput = { scope: 'url' | 'prefix' | 'domain' | 'everything'; value?: string | null };
type PurgeRow = { id: string; domain_id: string; scope: string; value: string | null; status: string; requested_by: string | null; config_version: number | null; error: string | null; created_at: Date; updated_at: Date; completed_at: Date | null };

function serializePurge(row: PurgeRow) {
  return { ...row, created_at: unixSeconds(row.created_at), updated_at: unixSeconds(row.updated_at), completed_at: unixSeconds(row.completed_at) };
}

function onDomain(host: string, apex: string): boolean {
  return host === apex || host.endsWith(`.${apex}`);
}

// url/prefix values are a path (every hostname of the domain) or an http(s) URL on the domain, stored normalised.
function urlOrPath(value: string, apex: string, scope: string): string {
  if (value.startsWith('/')) {
    if (/\s/.test(value)) throw new ValidationError('value', 'a path cannot contain white space');
    return value;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ValidationError('value', `a ${scope} purge needs an http(s) URL on ${apex} or a path starting with /`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ValidationError('value', 'only http and https URLs can be purged');
  if (!onDomain(url.hostname, apex)) throw new ValidationError('value', `${url.hostname} is not a hostname of ${apex}`);
  url.hash = '';
  return url.toString();
}

function normalizeValue(input: PurgeInput, apex: string): string | null {
  const value = input.value ?? null;
  switch (input.scope) {
    case 'url':
    case 'prefix':
      if (!value) throw new ValidationError('value', `value is required when scope is ${input.scope}`);
      return urlOrPath(value, apex, input.scope);
    case 'domain': {
      if (!value) return apex;
      const host = normalizeHostname(value);
      if (!host || !onDomain(host, apex)) throw new ValidationError('value', `${JSON.stringify(value)} is not a hostname of ${apex}`);
      return host;
    }
    case 'everything':
      if (value) throw new ValidationError('value', 'an everything purge takes no value');
      return null;
  }
}

/** Queues a purge; edges receive it with the next config snapshot and acknowledge it on their heartbeat. */
export async function createPurge(db: Db, domainId: string, input: PurgeInput, actor: Actor) {
  const domain = await assertDomainExists(db, domainId);
  const row = await db.purgeRequest.create({ data: { domain_id: domainId, scope: input.scope, value: normalizeValue(input, domain.domain), requested_by: actor.name } });
  return serializePurge(row);
}

/** A page of the domain's purge requests, newest first. */
export async function listPurges(db: Db, domainId: string, paging: Paging) {
  await assertDomainExists(db, domainId);
  const rows = await db.purgeRequest.findMany({ where: { domain_id: domainId }, orderBy: [{ created_at: 'desc' }, { id: 'desc' }], skip: paging.offset, take: paging.limit });
  return rows.map(serializePurge);
}

/** One purge request with the edges that acknowledged it. */
export async function getPurge(db: Db, domainId: string, requestId: string) {
  await assertDomainExists(db, domainId);
  const row = await db.purgeRequest.findFirst({ where: { id: requestId, domain_id: domainId }, include: { acks: { orderBy: { acked_at: 'asc' } } } });
  if (!row) throw new NotFoundError('purge request', requestId);
  const { acks, ...purge } = row;
  return { ...serializePurge(purge), acknowledged_by: acks.map((ack) => ({ edge_id: ack.edge_id, acked_at: unixSeconds(ack.acked_at) })) };
}

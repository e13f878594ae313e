import { createHash } from 'node:crypto';
import type { Db } from '../../db/client.js';
import { insertRows } from '../../db/insert-rows.js';
import { sqlOf } from '../../db/sql.js';
import { lockDomainWrites } from '../../db/write-lock.js';
import { NotFoundError, ValidationError } from '../../http/errors.js';
import { atItem, onlyItem } from '../../http/route.js';
import type { Paging } from '../../http/paging.js';
import { unixSeconds } from '../../http/timestamps.js';
import { assertDomainExists } from '../domains/service.js';
import { checkRecordContent, PROXIABLE_TYPES } from './record-content.js';
import { relativeRecordName } from './record-name.js';

export type RecordInput = {
  type?: string;
  name?: string;
  content?: string;
  ttl?: number;
  proxied?: boolean;
  routing_policy?: string;
  enabled?: boolean;
  comment?: string | null;
};

type RecordRow = {
  id: string;
  domain_id: string;
  type: string;
  name: string;
  content: string;
  ttl: number;
  proxied: boolean;
  routing_policy: string;
  enabled: boolean;
  comment: string | null;
  created_at: Date;
  updated_at: Date;
};

type Candidate = Omit<RecordRow, 'id' | 'domain_id' | 'created_at' | 'updated_at'>;

/** The API shape of a DNS record; `fqdn` is the absolute name for convenience. */
export function serializeRecord(row: RecordRow, zone: string) {
  return {
    id: row.id,
    domain_id: row.domain_id,
    type: row.type,
    name: row.name,
    fqdn: row.name === '@' ? zone : `${row.name}.${zone}`,
    content: row.content,
    ttl: row.ttl,
    proxied: row.proxied,
    routing_policy: row.routing_policy,
    enabled: row.enabled,
    comment: row.comment,
    created_at: unixSeconds(row.created_at),
    updated_at: unixSeconds(row.updated_at),
  };
}

/** A record's own rules, whatever else is in its zone: a valid name and content, and what its type allows (422 otherwise). */
export function checkCandidate(candidate: Candidate, zone: string): Candidate {
  const name = relativeRecordName(candidate.name, zone);
  if (!name) throw new ValidationError('name', `${JSON.stringify(candidate.name)} is not a valid name inside ${zone} (use "@" for the apex)`);
  const content = checkRecordContent(candidate.type, candidate.content);
  if (!content.ok) throw new ValidationError('content', content.reason);
  if (candidate.proxied && !PROXIABLE_TYPES.has(candidate.type)) throw new ValidationError('proxied', `only A, AAAA and CNAME records can be proxied, not ${candidate.type}`);
  if (candidate.routing_policy === 'geo' && !PROXIABLE_TYPES.has(candidate.type)) throw new ValidationError('routing_policy', 'geo routing applies to A, AAAA and CNAME records only');
  if (candidate.type === 'NS' && name === '@') throw new ValidationError('name', 'NS records at the apex are managed by the platform; NS records can only delegate subdomains');
  if (candidate.type === 'CNAME' && name === '@' && !candidate.proxied) throw new ValidationError('name', 'a CNAME at the zone apex must be proxied (it is flattened by the edge)');
  return { ...candidate, name, content: content.content };
}

type Neighbour = { type: string; content: string };

/** Refuses a record beside `others` (the records at its name): an identical one, or a CNAME sharing the name. */
export function assertNeighboursAllow(others: Neighbour[], candidate: Pick<Candidate, 'type' | 'name' | 'content'>): void {
  if (others.some((other) => other.type === candidate.type && other.content === candidate.content)) {
    throw new ValidationError('content', `an identical ${candidate.type} record for ${candidate.name} already exists`, 'duplicate record');
  }
  if (candidate.type === 'CNAME' && others.length > 0) throw new ValidationError('type', `a CNAME cannot share the name ${candidate.name} with other records`);
  if (others.some((other) => other.type === 'CNAME')) throw new ValidationError('name', `${candidate.name} already has a CNAME record, which cannot share its name`);
}

async function checkNeighbours(db: Db, domainId: string, candidate: Candidate, exceptId?: string): Promise<void> {
  const others = await db.dnsRecord.findMany({
    where: { domain_id: domainId, name: candidate.name, ...(exceptId ? { id: { not: exceptId } } : {}) },
    select: { type: true, content: true },
  });
  assertNeighboursAllow(others, candidate);
}

/** The stored form of a checked record: its content digest is the unique key of identical records. */
function storedRecord(candidate: Candidate) {
  return { ...candidate, content_digest: createHash('sha256').update(candidate.content).digest('hex') };
}

/** Serializes the domain's record writes, so zone checks see every committed record (call inside the transaction). */
export async function lockZoneWrites(db: Db, domainId: string): Promise<void> {
  await lockDomainWrites(db, domainId, 'dns');
}

/** A page of the domain's records ordered by name and type. */
export async function listRecords(db: Db, domainId: string, paging: Paging) {
  const domain = await assertDomainExists(db, domainId);
  const rows = await db.dnsRecord.findMany({
    where: { domain_id: domainId },
    orderBy: [{ name: 'asc' }, { type: 'asc' }, { created_at: 'asc' }],
    skip: paging.offset,
    take: paging.limit,
  });
  return rows.map((row) => serializeRecord(row, domain.zone_name));
}

type CreateInput = Required<Pick<RecordInput, 'type' | 'name' | 'content'>> & RecordInput;

function withDefaults(input: CreateInput): Candidate {
  return {
    type: input.type,
    name: input.name,
    content: input.content,
    ttl: input.ttl ?? 300,
    proxied: input.proxied ?? false,
    routing_policy: input.routing_policy ?? 'simple',
    enabled: input.enabled ?? true,
    comment: input.comment ?? null,
  };
}

/** Creates a record after type-specific and zone-level checks. */
export async function createRecord(db: Db, domainId: string, input: CreateInput) {
  return onlyItem(createRecords(db, domainId, [input]));
}

/**
 * Creates several records as createRecord would one after the other (each checked against the
 * zone and the ones before it), with one read of their names' neighbours and one insert.
 * A refused record is thrown as an ItemError with its index.
 */
export async function createRecords(db: Db, domainId: string, inputs: CreateInput[]) {
  await lockZoneWrites(db, domainId);
  const domain = await assertDomainExists(db, domainId);
  const names = inputs.flatMap((input) => relativeRecordName(input.name, domain.zone_name) ?? []);
  const { rows: zone } = await sqlOf(db).query<Neighbour & { name: string }>('SELECT name, type, content FROM dns_records WHERE domain_id = $1 AND name = ANY($2::text[])', [domainId, [...new Set(names)]]);
  const candidates = inputs.map((input, index) =>
    atItem(index, () => {
      const candidate = checkCandidate(withDefaults(input), domain.zone_name);
      assertNeighboursAllow(zone.filter((other) => other.name === candidate.name), candidate);
      zone.push(candidate);
      return candidate;
    }),
  );
  const rows = await insertRows(sqlOf(db), 'dns_records', candidates.map((candidate) => ({ ...storedRecord(candidate), domain_id: domainId })));
  return rows.map((row) => serializeRecord(row as RecordRow, domain.zone_name));
}

async function findRecord(db: Db, domainId: string, recordId: string) {
  const row = await db.dnsRecord.findFirst({ where: { id: recordId, domain_id: domainId } });
  if (!row) throw new NotFoundError('dns record', recordId);
  return row;
}

/** Merges the patch into the record and re-runs every check on the result. */
export async function updateRecord(db: Db, domainId: string, recordId: string, patch: RecordInput) {
  await lockZoneWrites(db, domainId);
  const domain = await assertDomainExists(db, domainId);
  const current = await findRecord(db, domainId, recordId);
  const merged = { ...current, ...Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) } as RecordRow;
  if (patch.type !== undefined && patch.type !== current.type && patch.proxied === undefined && !PROXIABLE_TYPES.has(patch.type)) merged.proxied = false;
  const candidate = checkCandidate(merged, domain.zone_name);
  await checkNeighbours(db, domainId, candidate, recordId);
  const { type, name, content, content_digest, ttl, proxied, routing_policy, enabled, comment } = storedRecord(candidate);
  const row = await db.dnsRecord.update({ where: { id: recordId }, data: { type, name, content, content_digest, ttl, proxied, routing_policy, enabled, comment } });
  return serializeRecord(row, domain.zone_name);
}

/** Deletes one record (and its geo routes). */
export async function deleteRecord(db: Db, domainId: string, recordId: string): Promise<void> {
  await assertDomainExists(db, domainId);
  await findRecord(db, domainId, recordId);
  await db.dnsRecord.delete({ where: { id: recordId } });
}

import type { Db } from '../../db/client.js';
import { insertNewRows, insertRows } from '../../db/insert-rows.js';
import { isTransactionClient, sqlOf } from '../../db/sql.js';
import { lockForWrite, noteDomainCreated } from '../../db/write-lock.js';
import type { Actor } from '../../http/actor.js';
import { NotFoundError, ValidationError } from '../../http/errors.js';
import type { Paging } from '../../http/paging.js';
import { normalizeApex } from '../../shared/hostnames.js';
import { compareDelegation, normalizeNameservers, type Delegation, type DelegationComparison, type DelegationLookup } from './delegation.js';
import { serializeDomain, type DomainRow } from './serialize.js';

export type DomainCreate = {
  domain: string;
  name?: string;
  display_name?: string | null;
  zone_name?: string;
  origin_shield_header_name?: string | null;
  origin_shield_secret?: string | null;
};
type DomainStatus = 'pending_nameserver' | 'active' | 'disabled';
export type DomainUpdate = Partial<DomainCreate> & { status?: DomainStatus };

/** The nameserver rows a domain is read with. */
export const WITH_NAMESERVERS = { nameservers: { select: { kind: true, hostname: true } } } as const;
/** The kind of the certificate job a domain gets when its delegation is verified (apex and wildcard). */
export const MANAGED_SSL_JOB = 'managed';

function apexOrThrow(input: string, field = 'domain'): string {
  const apex = normalizeApex(input);
  if (!apex) throw new ValidationError(field, `${JSON.stringify(input)} is not a valid apex hostname`);
  return apex;
}

function duplicateDomain(apex: string): ValidationError {
  return new ValidationError('domain', `domain ${apex} already exists`, 'duplicate domain');
}

// A PATCH moving the apex takes the apex's write lock first (inside the transaction), so a concurrent move to the same apex waits
// and then sees it taken; a concurrent create meets the apex's unique index.
async function assertApexFree(db: Db, apex: string, exceptId?: string): Promise<void> {
  await lockForWrite(db, `apex:${apex}`);
  const { rows } = await sqlOf(db).query<{ id: string }>('SELECT id FROM domains WHERE domain = $1', [apex]);
  const taken = rows[0];
  if (taken && taken.id !== exceptId) throw duplicateDomain(apex);
}

/** The domain with its nameservers, or NotFoundError. */
export async function findDomain(db: Db, id: string) {
  const row = await db.domain.findUnique({ where: { id }, include: WITH_NAMESERVERS });
  if (!row) throw new NotFoundError('domain', id);
  return row;
}

type DomainRef = { id: string; domain: string; zone_name: string };

// The domains a transaction has already found or created, so a batch writing many items of one domain
// reads it once. Only this file's updates and deletes change the apex or zone, and they forget the entry.
const knownDomains = new WeakMap<Db, Map<string, DomainRef>>();

function remember(db: Db, domain: DomainRef): void {
  if (!isTransactionClient(db)) return;
  knownDomains.set(db, (knownDomains.get(db) ?? new Map()).set(domain.id, { id: domain.id, domain: domain.domain, zone_name: domain.zone_name }));
}

function forget(db: Db, id: string): void {
  knownDomains.get(db)?.delete(id);
}

/** Throws NotFoundError unless the domain exists; returns its apex and zone. */
export async function assertDomainExists(db: Db, id: string): Promise<DomainRef> {
  const known = knownDomains.get(db)?.get(id);
  if (known) return known;
  const { rows } = await sqlOf(db).query<DomainRef>('SELECT id, domain, zone_name FROM domains WHERE id = $1', [id]);
  if (!rows[0]) throw new NotFoundError('domain', id);
  remember(db, rows[0]);
  return rows[0];
}

/** A page of domains, oldest first. */
const STATUSES: DomainStatus[] = ['pending_nameserver', 'active', 'disabled'];
const NAME_PART = /^[a-z0-9.-]{1,253}$/;

/** Narrows the domain list: `q`, part of the apex (hostname characters only), and `status`. */
export type DomainFilter = { q?: string; status?: DomainStatus };

/** The filter of GET /api/v1/domains from its query; a malformed value is 422 naming it. */
export function domainFilterOf(query: Record<string, unknown>): DomainFilter {
  const filter: DomainFilter = {};
  if (query.q !== undefined && query.q !== '') {
    const q = typeof query.q === 'string' ? query.q.trim().toLowerCase() : '';
    if (!NAME_PART.test(q)) throw new ValidationError('q', 'q must be part of a domain name: 1 to 253 letters, digits, dots and hyphens');
    filter.q = q;
  }
  if (query.status !== undefined) {
    if (!STATUSES.includes(query.status as DomainStatus)) throw new ValidationError('status', `status must be one of ${STATUSES.join(', ')}`);
    filter.status = query.status as DomainStatus;
  }
  return filter;
}

export async function listDomains(db: Db, paging: Paging, filter: DomainFilter = {}) {
  const rows = await db.domain.findMany({
    where: { domain: filter.q ? { contains: filter.q } : undefined, status: filter.status },
    orderBy: [{ created_at: 'asc' }, { id: 'asc' }],
    skip: paging.offset,
    take: paging.limit,
    include: WITH_NAMESERVERS,
  });
  return rows.map(serializeDomain);
}

/** Creates a pending domain expecting the platform nameservers; a duplicate apex is 422 on `domain`. */
export async function createDomain(db: Db, input: DomainCreate, actor: Actor, platformNameservers: string[]) {
  const apex = apexOrThrow(input.domain);
  const zone = input.zone_name === undefined ? apex : apexOrThrow(input.zone_name, 'zone_name');
  const sql = sqlOf(db);
  // The apex's unique index finds a taken apex in the insert itself (a concurrent claim waits for the first to commit).
  const [row] = await insertNewRows(sql, 'domains', [
    {
      domain: apex,
      zone_name: zone,
      name: input.name ?? apex,
      display_name: input.display_name ?? null,
      user_id: actor.type === 'admin' ? actor.userId : null,
      origin_shield_header_name: input.origin_shield_header_name ?? null,
      origin_shield_secret: input.origin_shield_secret ?? null,
    },
  ]);
  if (!row) throw duplicateDomain(apex);
  const expected = normalizeNameservers(platformNameservers).map((hostname) => ({ domain_id: row.id, kind: 'expected', hostname }));
  const nameservers = await insertRows(sql, 'domain_nameservers', expected);
  noteDomainCreated(db, row.id as string);
  remember(db, row as DomainRef);
  return serializeDomain({ ...(row as DomainRow), nameservers: nameservers as DomainRow['nameservers'] });
}

function checkStatusChange(from: string, to: string | undefined): void {
  if (to === undefined || to === from) return;
  if (to === 'active') {
    throw new ValidationError('status', 'a domain becomes active through nameserver verification or POST /activate, not by PATCH');
  }
}

/** Applies a partial update. A new apex must be free and sends the domain back to pending_nameserver. */
export async function updateDomain(db: Db, id: string, patch: DomainUpdate) {
  const current = await findDomain(db, id);
  checkStatusChange(current.status, patch.status);
  const data: Record<string, unknown> = {};
  for (const key of ['name', 'display_name', 'origin_shield_header_name', 'origin_shield_secret', 'status'] as const) {
    if (patch[key] !== undefined) data[key] = patch[key];
  }
  if (patch.zone_name !== undefined) data.zone_name = apexOrThrow(patch.zone_name, 'zone_name');
  if (patch.domain !== undefined) {
    const apex = apexOrThrow(patch.domain);
    if (apex !== current.domain) {
      await assertApexFree(db, apex, id);
      Object.assign(data, { domain: apex, status: current.status === 'disabled' ? 'disabled' : 'pending_nameserver', activated_at: null, nameservers_verified_at: null, nameservers_check_error: null });
      if (patch.zone_name === undefined && current.zone_name === current.domain) data.zone_name = apex;
      await db.domainNameserver.deleteMany({ where: { domain_id: id, kind: 'observed' } });
    }
  }
  if (data.status === 'pending_nameserver' && current.status !== 'pending_nameserver') Object.assign(data, { activated_at: null, activation_override: false });
  forget(db, id);
  const row = await db.domain.update({ where: { id }, data, include: WITH_NAMESERVERS });
  return serializeDomain(row);
}

/** Deletes the domain and, by cascade, its records, origins, rules and settings. */
export async function deleteDomain(db: Db, id: string): Promise<void> {
  await assertDomainExists(db, id);
  forget(db, id);
  await db.domain.delete({ where: { id } });
}

// `stored`: the domain's nameserver rows as read in this transaction; an activation of a new domain has none to delete.
async function recordObserved(db: Db, id: string, observed: string[], stored: NameserverRow[], now: Date): Promise<void> {
  if (stored.some((row) => row.kind === 'observed' && !observed.includes(row.hostname))) {
    await db.domainNameserver.deleteMany({ where: { domain_id: id, kind: 'observed', hostname: { notIn: observed } } });
  }
  for (const hostname of observed) {
    await db.domainNameserver.upsert({
      where: { domain_id_kind_hostname: { domain_id: id, kind: 'observed', hostname } },
      create: { domain_id: id, kind: 'observed', hostname, first_seen_at: now, last_seen_at: now },
      update: { last_seen_at: now },
    });
  }
}

// A domain an admin activated without observed delegation (override, force-verify) stays active until a
// check sees its delegation match; only then does losing it send the domain back to pending.
function nextStatus(status: DomainStatus, delegated: boolean, override: boolean): DomainStatus {
  if (status === 'pending_nameserver' && delegated) return 'active';
  if (status === 'active' && !delegated && !override) return 'pending_nameserver';
  return status;
}

/** What one delegation check saw and did. */
export type Verification = {
  domain: ReturnType<typeof serializeDomain>;
  previousStatus: string;
  comparison: DelegationComparison | undefined;
  lookupError: string | undefined;
  /** The managed certificate job queued by this check (pending → active), if any. */
  sslJobId: string | undefined;
};

// Entering active through verified delegation queues the managed certificate of the apex and its wildcard
// (SPEC.md, Domain status), once: not while one is already waiting or running.
async function queueManagedSsl(db: Db, domainId: string, apex: string): Promise<string | undefined> {
  const settings = await db.sslSettings.findUnique({ where: { domain_id: domainId }, select: { automatic: true } });
  if (settings && !settings.automatic) return undefined;
  const waiting = await db.sslJob.findFirst({ where: { domain_id: domainId, kind: MANAGED_SSL_JOB, status: { in: ['queued', 'running'] } }, select: { id: true } });
  if (waiting) return undefined;
  const job = await db.sslJob.create({ data: { domain_id: domainId, kind: MANAGED_SSL_JOB, status: 'queued', hostnames: [apex, `*.${apex}`] } });
  return job.id;
}

type NameserverRow = { kind: 'expected' | 'observed'; hostname: string };
type StoredDomain = DomainRow & { status: DomainStatus; nameservers: NameserverRow[] };

// The domain row with its nameserver rows in one statement, without Prisma (which compiles every
// query again): an onboarding batch activates thousands of domains (docs/api.md, Batches).
const NAMESERVER_ROWS = `COALESCE((SELECT json_agg(json_build_object('kind', n.kind, 'hostname', n.hostname)) FROM domain_nameservers n WHERE n.domain_id = d.id), '[]'::json) AS nameservers`;

async function loadDomain(db: Db, id: string): Promise<StoredDomain> {
  const { rows } = await sqlOf(db).query<StoredDomain>(`SELECT d.*, ${NAMESERVER_ROWS} FROM domains d WHERE d.id = $1`, [id]);
  if (!rows[0]) throw new NotFoundError('domain', id);
  return rows[0];
}

// The check's columns and the activation by override in one write.
async function activateByOverride(db: Db, id: string, check: DelegationCheck, now: Date): Promise<StoredDomain> {
  const { rows } = await sqlOf(db).query<StoredDomain>(
    `WITH updated AS (
       UPDATE domains SET nameservers_checked_at = $2, nameservers_check_error = $3, status = 'active', activated_at = $2, activation_override = true, updated_at = $2
       WHERE id = $1 RETURNING *)
     SELECT d.*, ${NAMESERVER_ROWS} FROM updated d`,
    [id, now, check.data.nameservers_check_error],
  );
  return rows[0];
}

/** What a delegation check saw and moved, and the domain columns it has still to write (`data`). */
type DelegationCheck = { data: Record<string, unknown>; status: DomainStatus; comparison: DelegationComparison | undefined; lookupError: string | undefined; sslJobId: string | undefined };

// Looks up the apex's NS records, records the observed set and moves the status (queueing the
// certificate on pending → active); the check's own columns are left in `data` for the caller's write.
async function checkDelegation(db: Db, current: StoredDomain, lookup: DelegationLookup, now: Date): Promise<DelegationCheck> {
  const id = current.id;
  const delegation: Delegation = await lookup(current.domain);
  // What the check saw stays with the domain: the observed set, or why the lookup could not tell.
  const data: Record<string, unknown> = { nameservers_checked_at: now, nameservers_check_error: delegation.known ? null : delegation.error };
  let comparison: DelegationComparison | undefined;
  let sslJobId: string | undefined;
  let status = current.status;
  if (delegation.known) {
    await recordObserved(db, id, delegation.nameservers, current.nameservers, now);
    const expected = current.nameservers.filter((row) => row.kind === 'expected').map((row) => row.hostname);
    comparison = compareDelegation(expected, delegation.nameservers);
    const next = nextStatus(current.status, comparison.delegated, current.activation_override);
    if (comparison.delegated) Object.assign(data, { nameservers_verified_at: now, activation_override: false });
    // Compare and set: of several checks at once, one moves the status (and queues the certificate).
    const moved = next !== current.status && (await db.domain.updateMany({ where: { id, status: current.status }, data: { status: next, activated_at: next === 'active' ? now : null, activation_override: false } })).count === 1;
    if (moved) status = next;
    if (moved && next === 'active') sslJobId = await queueManagedSsl(db, id, current.domain);
  }
  return { data, status, comparison, lookupError: delegation.known ? undefined : delegation.error, sslJobId };
}

async function recordCheck(db: Db, current: StoredDomain, check: DelegationCheck): Promise<Verification> {
  const row = await db.domain.update({ where: { id: current.id }, data: check.data, include: WITH_NAMESERVERS });
  return { domain: serializeDomain(row), previousStatus: current.status, comparison: check.comparison, lookupError: check.lookupError, sslJobId: check.sslJobId };
}

/**
 * Looks up the apex's NS records and moves the domain: pending → active when the
 * delegation matches (queueing its managed certificate), active → pending when it
 * has moved away. A lookup that cannot tell (timeout, SERVFAIL) changes nothing
 * but the check time.
 */
export async function verifyNameservers(db: Db, id: string, lookup: DelegationLookup, now = new Date()): Promise<Verification> {
  const current = await findDomain(db, id);
  return recordCheck(db, current, await checkDelegation(db, current, lookup, now));
}

/**
 * Activates a pending domain when its delegation matches, or unconditionally with
 * `override`. Already active is a no-op; a disabled domain must be re-enabled first.
 */
export async function activateDomain(db: Db, id: string, override: boolean, lookup: DelegationLookup, now = new Date()) {
  const current = await loadDomain(db, id);
  if (current.status === 'active') return serializeDomain(current);
  if (current.status === 'disabled') {
    throw new ValidationError('status', 'the domain is disabled; PATCH status to pending_nameserver before activating it');
  }
  const check = await checkDelegation(db, current, lookup, now);
  // A delegation that matched but whose status another check moved first is recorded as such, not overridden.
  if (check.status !== 'active' && override && !check.comparison?.delegated) return serializeDomain(await activateByOverride(db, id, check, now));
  const { domain } = await recordCheck(db, current, check);
  if (domain.status === 'active') return domain;
  const detail = `nameservers are not delegated (expected ${domain.expected_nameservers.join(', ') || 'none'}, observed ${domain.observed_nameservers.join(', ') || 'none'}); send {"override": true} to activate anyway`;
  throw new ValidationError('override', detail, 'nameserver delegation not verified');
}

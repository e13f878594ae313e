// The nameserver endpoints of a domain (SPEC.md, Domains): verify (what the
// delegation check saw), force-verify (an admin takes an unobservable delegation
// as verified) and reseed-expected (the expected set follows the platform's again).
import type { Db } from '../../db/client.js';
import { lockDomainWrites } from '../../db/write-lock.js';
import { unixSeconds } from '../../http/timestamps.js';
import { ValidationError } from '../../http/errors.js';
import { compareDelegation, normalizeNameservers, type DelegationLookup } from './delegation.js';
import { serializeDomain } from './serialize.js';
import { findDomain, verifyNameservers, WITH_NAMESERVERS } from './service.js';

function hostnames(rows: { kind: string; hostname: string }[], kind: 'expected' | 'observed'): string[] {
  return rows.filter((row) => row.kind === kind).map((row) => row.hostname);
}

/** POST /nameservers/verify: checks the delegation now and answers the sets compared, and any status change. */
export async function verifyReport(db: Db, id: string, lookup: DelegationLookup, now = new Date()) {
  const result = await verifyNameservers(db, id, lookup, now);
  // A lookup that could not tell still reports the sets as stored (observed from the last answer).
  const comparison = result.comparison ?? compareDelegation(result.domain.expected_nameservers, result.domain.observed_nameservers);
  return {
    domain_id: id,
    status: result.domain.status,
    previous_status: result.previousStatus,
    expected: comparison.expected,
    observed: comparison.observed,
    matched: comparison.matched,
    missing: comparison.missing,
    unexpected: comparison.unexpected,
    delegated: result.comparison ? comparison.delegated : null,
    checked_at: unixSeconds(now),
    lookup_error: result.lookupError ?? null,
    ssl_job_id: result.sslJobId ?? null,
  };
}

/**
 * POST /nameservers/force-verify: a pending domain becomes active without an
 * observed delegation (an admin's decision, with its reason in the audit log).
 * Already active: nothing changes. Disabled: 422.
 */
export async function forceVerify(db: Db, id: string, reason: string, now = new Date()) {
  const current = await findDomain(db, id);
  if (current.status === 'disabled') throw new ValidationError('status', 'the domain is disabled; PATCH status to pending_nameserver before verifying it');
  const forced = current.status === 'pending_nameserver';
  const row = forced
    ? await db.domain.update({ where: { id }, data: { status: 'active', activated_at: now, activation_override: true, nameservers_verified_at: now }, include: WITH_NAMESERVERS })
    : current;
  return { domain: serializeDomain(row), previous_status: current.status, forced, reason: reason.trim() };
}

/**
 * POST /nameservers/reseed-expected: the expected set becomes the platform's
 * nameservers again. Rows of names in both sets are kept (first seen unchanged),
 * observed rows are never touched, the status does not move: the next check decides.
 * Call it in a transaction (the audited route's), which the per-domain write lock lasts for.
 */
export async function reseedExpected(db: Db, id: string, platform: string[], now = new Date()) {
  // The same reseed sent many times at once: one after the other, each seeing the rows the last one left.
  await lockDomainWrites(db, id, 'nameservers');
  const current = await findDomain(db, id);
  const before = hostnames(current.nameservers, 'expected');
  const after = normalizeNameservers(platform);
  if (after.length === 0) throw new ValidationError('nameservers', 'no platform nameserver is configured (settings group nameservers.hostnames, or CDN_DEFAULT_NAMESERVERS)');
  const removed = before.filter((name) => !after.includes(name));
  const added = after.filter((name) => !before.includes(name));
  await db.domainNameserver.deleteMany({ where: { domain_id: id, kind: 'expected', hostname: { in: removed } } });
  for (const hostname of added) await db.domainNameserver.create({ data: { domain_id: id, kind: 'expected', hostname, first_seen_at: now, last_seen_at: now } });
  const row = await db.domain.findUniqueOrThrow({ where: { id }, include: WITH_NAMESERVERS });
  const comparison = compareDelegation(after, hostnames(row.nameservers, 'observed'));
  return { domain: serializeDomain(row), expected: after, added, removed, kept: after.filter((name) => before.includes(name)), observed: comparison.observed, matched: comparison.matched, missing: comparison.missing };
}

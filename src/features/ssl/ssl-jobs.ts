// SSL jobs as callers queue and see them: issuance requests, forced renewals, and the
// acme-status view (docs/ssl.md, "Jobs").
import type { Config } from '../../config/load.js';
import type { Db } from '../../db/client.js';
import { unixSeconds } from '../../http/timestamps.js';
import { assertDomainExists } from '../domains/service.js';
import { accountState } from './acme/acme-account.js';
import type { ChallengeType } from './acme/acme-challenges.js';
import { checkNamesOfDomain, proxiedHostnames } from './certificates.js';

export type CertificateRequest = { hostnames?: string[]; challenge?: ChallengeType };

type JobRow = { id: string; domain_id: string; kind: string; status: string; hostnames: string[]; challenge: string | null; attempts: number; last_error: string | null; run_after: Date; certificate_id: string | null; created_at: Date; updated_at: Date; finished_at: Date | null };

/** A job as the API shows it. */
export function jobView(row: JobRow) {
  return {
    id: row.id,
    domain_id: row.domain_id,
    kind: row.kind,
    status: row.status,
    hostnames: row.hostnames,
    challenge: row.challenge,
    attempts: row.attempts,
    last_error: row.last_error,
    run_after: unixSeconds(row.run_after),
    certificate_id: row.certificate_id,
    created_at: unixSeconds(row.created_at),
    updated_at: unixSeconds(row.updated_at),
    finished_at: unixSeconds(row.finished_at),
  };
}

const ACTIVE = ['queued', 'running'];

// The same request sent again while its job waits or runs answers that job instead of queueing another.
async function queueOnce(db: Db, data: { domain_id: string; kind: string; hostnames: string[]; challenge: string | null; certificate_id?: string | null }) {
  const waiting = await db.sslJob.findFirst({ where: { domain_id: data.domain_id, kind: data.kind, status: { in: ACTIVE }, hostnames: { equals: data.hostnames }, challenge: data.challenge } });
  return jobView(waiting ?? (await db.sslJob.create({ data: { ...data, status: 'queued' } })));
}

/** Queues the issuance of an ACME certificate for the request's names (default: the proxied hostnames). */
export async function requestCertificate(db: Db, domainId: string, request: CertificateRequest) {
  const { domain: apex } = await assertDomainExists(db, domainId);
  const hostnames = request.hostnames ? checkNamesOfDomain(request.hostnames, apex) : await proxiedHostnames(db, domainId, apex);
  return queueOnce(db, { domain_id: domainId, kind: 'issue', hostnames: [...new Set(hostnames)].sort(), challenge: request.challenge ?? null });
}

/** Queues a renewal now of the domain's newest active ACME certificate, or an issuance when it has none. */
export async function forceRenewal(db: Db, domainId: string) {
  await assertDomainExists(db, domainId);
  const current = await db.sslCertificate.findFirst({ where: { domain_id: domainId, source: 'acme', status: 'active' }, orderBy: [{ created_at: 'desc' }, { id: 'asc' }], select: { id: true, hostnames: true } });
  if (!current) return requestCertificate(db, domainId, {});
  return queueOnce(db, { domain_id: domainId, kind: 'renew', hostnames: [...current.hostnames].sort(), challenge: null, certificate_id: current.id });
}

const STATUS_JOBS = 50;

/** The ACME state of a domain: the account, its newest jobs, and when its ACME certificates renew. */
export async function acmeStatus(db: Db, config: Config, domainId: string) {
  await assertDomainExists(db, domainId);
  const [account, jobs, certificates] = await Promise.all([
    accountState(db, config.sslAcmeDirectoryUrl),
    db.sslJob.findMany({ where: { domain_id: domainId }, orderBy: [{ created_at: 'desc' }, { id: 'asc' }], take: STATUS_JOBS }),
    db.sslCertificate.findMany({ where: { domain_id: domainId, source: 'acme', status: 'active' }, orderBy: { created_at: 'desc' }, select: { id: true, hostnames: true, not_after: true, renew_after: true, renewal_info_check_after: true } }),
  ]);
  return {
    account,
    jobs: jobs.map(jobView),
    certificates: certificates.map((row) => ({ id: row.id, hostnames: row.hostnames, not_after: unixSeconds(row.not_after), renew_after: unixSeconds(row.renew_after), renewal_info_check_after: unixSeconds(row.renewal_info_check_after) })),
  };
}

import type { Db } from '../../db/client.js';
import { unixSeconds } from '../../http/timestamps.js';
import type { Warning } from '../operations/warnings.js';

const DAY_MS = 86400 * 1000;
const CERT_WARNING_DAYS = 14;

/**
 * Certificates in force that expire within 14 days without a successful renewal: critical. An
 * ACME certificate whose renewal is not due yet (short-lived ones always expire within 14 days)
 * is not listed; a manual one, or an ACME one past its renewal time, is.
 */
export async function expiringCertificates(db: Db, now: Date): Promise<Warning[]> {
  const rows = await db.sslCertificate.findMany({
    where: { status: 'active', not_after: { lt: new Date(now.getTime() + CERT_WARNING_DAYS * DAY_MS) }, OR: [{ source: { not: 'acme' } }, { renew_after: null }, { renew_after: { lte: now } }] },
    include: { domain: { select: { domain: true } } },
  });
  return rows.map((certificate) => {
    const expired = certificate.not_after! <= now;
    return {
      code: expired ? 'certificate_expired' : 'certificate_expiring',
      severity: 'critical',
      message: `the certificate for ${certificate.hostnames.join(', ')} (${certificate.domain.domain}) ${expired ? 'has expired' : `expires at ${certificate.not_after!.toISOString()} and has not been renewed`}`,
      domain_id: certificate.domain_id,
      detail: { certificate_id: certificate.id, source: certificate.source, not_after: unixSeconds(certificate.not_after) },
    };
  });
}

/**
 * Domains whose newest finished SSL job failed: the CA's error, and that the certificate in force
 * (if any) stays in service. A later success clears it.
 */
export async function failedSslJobs(db: Db): Promise<Warning[]> {
  const rows = await db.$queryRaw<{ id: string; domain_id: string; domain: string; kind: string; hostnames: string[]; last_error: string | null; finished_at: Date | null; status: string }[]>`
    SELECT DISTINCT ON (j.domain_id) j.id, j.domain_id, d.domain, j.kind, j.hostnames, j.last_error, j.finished_at, j.status
    FROM ssl_jobs j JOIN domains d ON d.id = j.domain_id
    WHERE j.status IN ('succeeded', 'failed')
    ORDER BY j.domain_id, j.finished_at DESC NULLS LAST, j.id`;
  return rows
    .filter((row) => row.status === 'failed')
    .map((row) => ({
      code: row.kind === 'renew' ? 'certificate_renewal_failed' : 'certificate_issuance_failed',
      severity: 'warning',
      message: `${row.kind === 'renew' ? 'renewing' : 'issuing'} the certificate for ${row.hostnames.join(', ')} (${row.domain}) failed${row.kind === 'renew' ? '; the current certificate stays in service' : ''}: ${row.last_error ?? 'no error recorded'}`,
      domain_id: row.domain_id,
      detail: { job_id: row.id, error: row.last_error, finished_at: unixSeconds(row.finished_at) },
    }));
}

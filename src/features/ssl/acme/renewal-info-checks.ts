// Asking the CA again about the renewal of its certificates (RFC 9773 section 4.3): a CA may move a
// window at any time (to now, ahead of a mass revocation), so each ACME certificate of a CA that
// offers renewal information is checked when its last answer's Retry-After says. Several cores
// share the work: a check is claimed with FOR UPDATE SKIP LOCKED, its next time pushed an hour
// ahead, so a core that stops mid-check leaves it to be asked again then.
import type pg from 'pg';
import { checkRenewalInfo, certificateIdOf, FAILED_CHECK_SECONDS } from './renewal-info.js';

const CHECKS_PER_ROUND = 20;

const CLAIM_DUE_CHECKS = `
  UPDATE ssl_certificates SET renewal_info_check_after = $2 WHERE id IN (
    SELECT id FROM ssl_certificates
    WHERE source = 'acme' AND status = 'active' AND certificate_pem IS NOT NULL AND renewal_info_check_after <= $1
    ORDER BY renewal_info_check_after LIMIT $3 FOR UPDATE SKIP LOCKED)
  RETURNING id, certificate_pem, renew_after`;

const RECORD_CHECK = `
  UPDATE ssl_certificates SET renew_after = COALESCE($2, renew_after), renewal_info_check_after = $3
  WHERE id = $1 AND status = 'active'`;

type DueCheck = { id: string; certificate_pem: string; renew_after: Date | null };

/** Checks the certificates whose renewal information is due (at most 20); returns how many renewal times moved. */
export async function checkDueRenewalInfo(pool: pg.Pool, directoryUrl: string, now: Date): Promise<number> {
  const lease = new Date(now.getTime() + FAILED_CHECK_SECONDS * 1000);
  const { rows } = await pool.query<DueCheck>(CLAIM_DUE_CHECKS, [now, lease, CHECKS_PER_ROUND]);
  let moved = 0;
  for (const row of rows) {
    const check = await checkRenewalInfo(directoryUrl, row.certificate_pem, now, row.renew_after ?? undefined);
    const renewAt = check.offered ? check.renewAt : undefined;
    await pool.query(RECORD_CHECK, [row.id, renewAt ?? null, check.offered ? check.checkAgainAt : null]);
    if (renewAt && renewAt.getTime() !== row.renew_after?.getTime()) moved++;
  }
  return moved;
}

/** The RFC 9773 identifier a renewal order names as the certificate it replaces: only for a CA that offers renewal information. */
export async function replacedCertificateId(pool: pg.Pool, certificateId: string): Promise<string | undefined> {
  const { rows } = await pool.query<{ certificate_pem: string | null }>('SELECT certificate_pem FROM ssl_certificates WHERE id = $1 AND renewal_info_check_after IS NOT NULL', [certificateId]);
  return rows[0]?.certificate_pem ? certificateIdOf(rows[0].certificate_pem) : undefined;
}

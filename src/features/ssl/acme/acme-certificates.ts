import { randomUUID, X509Certificate } from 'node:crypto';
import type { Db } from '../../../db/client.js';
import { sqlOf, transaction } from '../../../db/sql.js';
import { markConfigDirty } from '../../../publish/dirty.js';
import { privateKeyContext } from '../key-storage.js';
import type { SecretBox } from '../secret-box.js';
import type { IssuedCertificate } from './acme-order.js';
import type { RenewalInfoCheck } from './renewal-info.js';

/** When a certificate without a renewal window from its CA is renewed: two thirds into its lifetime. */
export function renewalTime(notBefore: Date, notAfter: Date): Date {
  return new Date(notBefore.getTime() + ((notAfter.getTime() - notBefore.getTime()) * 2) / 3);
}

function sameNames(a: string[], b: string[]): boolean {
  return a.length === b.length && [...a].sort().every((name, index) => name === [...b].sort()[index]);
}

/**
 * Stores an issued certificate, its key sealed, as active (source acme), renewed when the CA's
 * renewal information says (asked again when it says) or two thirds into its lifetime, and marks `replaces` (the
 * certificate a renewal renews) and every other active ACME certificate of the domain for the same
 * names as replaced, in one transaction under the domain's row lock. Marks the config dirty.
 */
export async function storeAcmeCertificate(db: Db, box: SecretBox, domainId: string, issued: IssuedCertificate, replaces: string | null, renewal: RenewalInfoCheck = { offered: false }): Promise<string> {
  const leaf = new X509Certificate(issued.certificatePem);
  const hostnames = [...new Set((leaf.subjectAltName ?? '').split(', ').filter((entry) => entry.startsWith('DNS:')).map((entry) => entry.slice(4).toLowerCase()))];
  const notBefore = new Date(leaf.validFrom);
  const notAfter = new Date(leaf.validTo);
  const id = randomUUID();
  await transaction(db, async (tx) => {
    await sqlOf(tx).query('SELECT id FROM domains WHERE id = $1 FOR UPDATE', [domainId]);
    const earlier = await tx.sslCertificate.findMany({ where: { domain_id: domainId, source: 'acme', status: 'active' }, select: { id: true, hostnames: true } });
    const replaced = earlier.filter((row) => row.id === replaces || sameNames(row.hostnames, hostnames)).map((row) => row.id);
    await tx.sslCertificate.updateMany({ where: { id: { in: replaced } }, data: { status: 'replaced' } });
    await tx.sslCertificate.create({
      data: {
        id,
        domain_id: domainId,
        source: 'acme',
        status: 'active',
        hostnames,
        issuer: leaf.issuer.replace(/\n/g, ', '),
        serial_number: leaf.serialNumber,
        fingerprint_sha256: leaf.fingerprint256,
        not_before: notBefore,
        not_after: notAfter,
        renew_after: (renewal.offered && renewal.renewAt) || renewalTime(notBefore, notAfter),
        renewal_info_check_after: renewal.offered ? renewal.checkAgainAt : null,
        certificate_pem: issued.certificatePem,
        chain_pem: issued.chainPem,
        private_key_encrypted: box.seal(issued.privateKeyPem, privateKeyContext(id)),
      },
    });
    await markConfigDirty(tx, 'acme certificate issued');
  });
  return id;
}

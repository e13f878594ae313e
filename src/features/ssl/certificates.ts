import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/client.js';
import { sqlOf } from '../../db/sql.js';
import { ValidationError } from '../../http/errors.js';
import type { Paging } from '../../http/paging.js';
import { unixSeconds } from '../../http/timestamps.js';
import { assertDomainExists } from '../domains/service.js';
import { checkCertificateUpload, type CertificateUpload } from './certificate-check.js';
import { privateKeyContext } from './key-storage.js';
import type { SecretBox } from './secret-box.js';

type CertificateRow = {
  id: string;
  source: string;
  status: string;
  hostnames: string[];
  issuer: string | null;
  serial_number: string | null;
  fingerprint_sha256: string | null;
  not_before: Date | null;
  not_after: Date | null;
  created_at: Date;
};

/** A certificate as the API shows it: its facts, never its key (nor whether one is stored). */
export function certificateView(row: CertificateRow) {
  return {
    id: row.id,
    source: row.source,
    status: row.status,
    hostnames: row.hostnames,
    issuer: row.issuer,
    serial: row.serial_number,
    fingerprint_sha256: row.fingerprint_sha256,
    not_before: unixSeconds(row.not_before),
    not_after: unixSeconds(row.not_after),
    created_at: unixSeconds(row.created_at),
  };
}

const VIEW_COLUMNS = { id: true, source: true, status: true, hostnames: true, issuer: true, serial_number: true, fingerprint_sha256: true, not_before: true, not_after: true, created_at: true } as const;

/** A page of the domain's certificates, newest first, whatever their status. */
export async function listCertificates(db: Db, domainId: string, paging: Paging) {
  await assertDomainExists(db, domainId);
  const rows = await db.sslCertificate.findMany({ where: { domain_id: domainId }, orderBy: [{ created_at: 'desc' }, { id: 'asc' }], skip: paging.offset, take: paging.limit, select: VIEW_COLUMNS });
  return rows.map(certificateView);
}

/** The certificates in force for the domain (status active), newest first. */
export async function activeCertificates(db: Db, domainId: string) {
  const rows = await db.sslCertificate.findMany({ where: { domain_id: domainId, status: 'active' }, orderBy: [{ created_at: 'desc' }, { id: 'asc' }], select: VIEW_COLUMNS });
  return rows.map(certificateView);
}

function fqdn(name: string, apex: string): string {
  return (name === '@' ? apex : `${name}.${apex}`).toLowerCase();
}

/** The names the edges serve for the domain: its enabled, proxied records. */
export async function servedHostnames(db: Db, domainId: string, apex: string): Promise<string[]> {
  const records = await db.dnsRecord.findMany({ where: { domain_id: domainId, proxied: true, enabled: true }, select: { name: true } });
  return [...new Set(records.map((record) => fqdn(record.name, apex)))].sort();
}

/** What a certificate must cover by default: every name the edge serves for the domain (the apex when none). */
export async function proxiedHostnames(db: Db, domainId: string, apex: string): Promise<string[]> {
  const names = await servedHostnames(db, domainId, apex);
  return names.length > 0 ? names : [apex];
}

/** The names lower-cased without a trailing dot; 422 on hostnames when one is not the apex or under it. */
export function checkNamesOfDomain(hostnames: string[], apex: string): string[] {
  const names = hostnames.map((name) => name.toLowerCase().replace(/\.$/, ''));
  const foreign = names.filter((name) => name !== apex && !name.endsWith(`.${apex}`));
  if (foreign.length > 0) throw new ValidationError('hostnames', `${foreign.join(', ')} ${foreign.length === 1 ? 'is' : 'are'} not under ${apex}`);
  return names;
}

/**
 * Stores a checked certificate the operator brings, its key sealed, as the domain's active manual
 * certificate; the manual certificate it replaces is kept as `replaced`.
 */
export async function storeManualCertificate(db: Db, box: SecretBox, domainId: string, upload: CertificateUpload & { hostnames?: string[] }, now = new Date()) {
  const { domain: apex } = await assertDomainExists(db, domainId);
  const required = upload.hostnames ? checkNamesOfDomain(upload.hostnames, apex) : await proxiedHostnames(db, domainId, apex);
  const facts = checkCertificateUpload(upload, required, now);
  const id = randomUUID();
  // Two uploads at once must not leave two active manual certificates.
  await sqlOf(db).query('SELECT id FROM domains WHERE id = $1 FOR UPDATE', [domainId]);
  await db.sslCertificate.updateMany({ where: { domain_id: domainId, source: 'manual', status: 'active' }, data: { status: 'replaced' } });
  const row = await db.sslCertificate.create({
    data: {
      id,
      domain_id: domainId,
      source: 'manual',
      status: 'active',
      hostnames: facts.hostnames,
      issuer: facts.issuer,
      serial_number: facts.serial,
      fingerprint_sha256: facts.fingerprint_sha256,
      not_before: facts.not_before,
      not_after: facts.not_after,
      certificate_pem: upload.certificate.trim() + '\n',
      chain_pem: upload.chain?.trim() ? upload.chain.trim() + '\n' : null,
      private_key_encrypted: box.seal(upload.private_key, privateKeyContext(id)),
    },
    select: VIEW_COLUMNS,
  });
  return certificateView(row);
}

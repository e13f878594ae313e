import type { Db } from '../../db/client.js';
import { unixSeconds } from '../../http/timestamps.js';
import { assertDomainExists } from '../domains/service.js';
import { activeCertificates } from './certificates.js';

export type SslSettingsInput = { mode?: string; automatic?: boolean; always_https?: boolean; min_tls_version?: string; hsts_enabled?: boolean; hsts_max_age?: number };
type SslSettingsRow = Required<SslSettingsInput> & { domain_id: string; updated_at: Date };

/** The API shape of a domain's SSL preferences: its row, or the defaults (customised: false). */
export function sslSettingsOf(row: SslSettingsRow | null, domainId: string, defaults: Required<SslSettingsInput>) {
  if (!row) return { ...defaults, domain_id: domainId, customised: false, updated_at: null };
  const { mode, automatic, always_https, min_tls_version, hsts_enabled, hsts_max_age } = row;
  return { mode, automatic, always_https, min_tls_version, hsts_enabled, hsts_max_age, domain_id: domainId, customised: true, updated_at: unixSeconds(row.updated_at) };
}

/** The SSL overview of a domain: preferences and the certificates in force (without key material). */
export async function getSsl(db: Db, domainId: string, defaults: Required<SslSettingsInput>) {
  await assertDomainExists(db, domainId);
  const [settings, certificates] = await Promise.all([
    db.sslSettings.findUnique({ where: { domain_id: domainId } }),
    activeCertificates(db, domainId),
  ]);
  return { settings: sslSettingsOf(settings, domainId, defaults), certificates };
}

/** Merges the given preferences into the stored ones (defaults for a domain that had none). */
export async function patchSslSettings(db: Db, domainId: string, patch: SslSettingsInput, defaults: Required<SslSettingsInput>) {
  await assertDomainExists(db, domainId);
  const row = await db.sslSettings.upsert({ where: { domain_id: domainId }, create: { ...defaults, ...patch, domain_id: domainId }, update: patch });
  return sslSettingsOf(row, domainId, defaults);
}

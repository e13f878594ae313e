import { Badge, DataTable, Empty, Pager, When } from '../components.js';
import type { Domain } from './domains.js';
import { CERTIFICATE_STATUS_WORDS, SOURCE_WORDS, expiryInWords } from './ssl-words.js';

export type Certificate = { id: string; source: string; status: string; hostnames: string[]; issuer: string | null; serial: string | null; not_before: number | null; not_after: number | null };

/** When each active ACME certificate renews (acme-status `certificates`), by certificate id. */
export type Renewals = Map<string, number | null>;

function Expiry({ certificate }: { certificate: Certificate }) {
  return (
    <>
      <When at={certificate.not_after} /> <span class="muted">({expiryInWords(certificate.not_after)})</span>
    </>
  );
}

// An ACME certificate in force renews at its renew_after; a manual one is replaced by uploading another.
function Renewal({ certificate, renewals }: { certificate: Certificate; renewals: Renewals }) {
  if (certificate.status !== 'active') return <span class="muted">—</span>;
  if (certificate.source === 'manual') return <span>by hand: upload a new certificate before it expires</span>;
  const at = renewals.get(certificate.id);
  return at ? (
    <span>
      automatically after <When at={at} />
    </span>
  ) : (
    <span class="muted">—</span>
  );
}

/** The domain's certificates, in force and history, newest first, a page at a time. */
export function CertificatesTable({ domain, certificates, renewals, offset, onOffset }: { domain: Domain; certificates: Certificate[]; renewals: Renewals; offset: number; onOffset: (offset: number) => void }) {
  return (
    <>
      {certificates.length === 0 && offset === 0 ? <Empty>No certificate yet: edges serve this domain over plain HTTP only. Request one from the CA or upload one below.</Empty> : null}
      {certificates.length ? (
        <DataTable
          label={`Certificates of ${domain.domain}`}
          columns={[{ label: 'Names', wrap: true }, 'Source', 'Status', { label: 'Issuer', wrap: true }, { label: 'Serial', wrap: true }, 'Valid from', 'Valid until', 'Renewal']}
          rows={certificates}
          rowKey={(certificate) => certificate.id}
          cells={(certificate) => [
            certificate.hostnames.join(', '),
            SOURCE_WORDS[certificate.source] ?? certificate.source,
            <Badge tone={certificate.status === 'active' ? 'good' : 'neutral'}>{CERTIFICATE_STATUS_WORDS[certificate.status] ?? certificate.status}</Badge>,
            certificate.issuer ?? '—',
            certificate.serial ? <code>{certificate.serial}</code> : '—',
            <When at={certificate.not_before} />,
            <Expiry certificate={certificate} />,
            <Renewal certificate={certificate} renewals={renewals} />,
          ]}
        />
      ) : null}
      <Pager offset={offset} count={certificates.length} onOffset={onOffset} />
    </>
  );
}

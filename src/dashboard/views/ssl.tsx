import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { SSL_SETTINGS_RULES } from '../api-schemas.js';
import { Failure, Loading, PAGE_SIZE, Values } from '../components.js';
import type { Owner } from '../ownership.js';
import { useApi } from '../use-api.js';
import { REPORTED_FIELDS, ValuesForm } from '../values-form.js';
import type { Domain } from './domains.js';
import { CheckServed } from './ssl-check.js';
import { CertificatesTable, type Certificate } from './ssl-certificates.js';
import { AcmeJobs, type AcmeStatus } from './ssl-jobs.js';
import { RenewNow, RequestCertificate } from './ssl-request.js';
import { UploadCertificate } from './ssl-upload.js';

const POLL_MS = 5000;

function SslSettings({ domain, owner }: { domain: Domain; owner?: Owner }) {
  const ssl = useApi<{ settings: Record<string, unknown> }>(`/api/v1/domains/${domain.id}/ssl`);
  return (
    <>
      <h3>Preferences</h3>
      <Failure failure={ssl.failure} />
      <Loading when={ssl.loading && !ssl.data} />
      {ssl.data && owner ? (
        <>
          <p class="note">
            The SSL preferences are part of <code>{owner.file}</code>: change them there. Certificates and their keys are never in git, so requesting, renewing and uploading certificates stay available here.
          </p>
          <Values values={ssl.data.settings} skip={REPORTED_FIELDS} />
        </>
      ) : null}
      {ssl.data && !owner ? (
        <ValuesForm
          label="SSL settings"
          values={ssl.data.settings}
          skip={REPORTED_FIELDS}
          fields={SSL_SETTINGS_RULES}
          onSave={async (changed) => {
            await api('PATCH', `/api/v1/domains/${domain.id}/ssl/settings`, changed);
            ssl.reload();
          }}
        />
      ) : null}
    </>
  );
}

/**
 * The domain's SSL: its preferences (read-only when git owns them), its certificates in force and
 * their history, the ACME account and jobs (polled while one waits or runs and the CA is
 * configured), and the actions: request, renew, upload, and check what the edges serve.
 */
export function SslTab({ domain, owner }: { domain: Domain; owner?: Owner }) {
  const [offset, setOffset] = useState(0);
  const certificates = useApi<Certificate[]>(`/api/v1/domains/${domain.id}/ssl/certificates?limit=${PAGE_SIZE}&offset=${offset}`);
  const acme = useApi<AcmeStatus>(`/api/v1/domains/${domain.id}/ssl/acme-status`);
  const working = acme.data?.account.status !== 'not_configured' && (acme.data?.jobs.some((job) => job.status === 'queued' || job.status === 'running') ?? false);
  useEffect(() => {
    if (!working) return;
    const timer = setTimeout(() => (acme.reload(), certificates.reload()), POLL_MS);
    return () => clearTimeout(timer);
  }, [working, acme.data, acme.reload, certificates.reload]);
  const renewals = new Map((acme.data?.certificates ?? []).map((certificate) => [certificate.id, certificate.renew_after]));
  return (
    <div>
      <h2>SSL</h2>
      <SslSettings domain={domain} owner={owner} />
      <h3>Certificates</h3>
      <Failure failure={certificates.failure} />
      <Loading when={certificates.loading && !certificates.data} />
      {certificates.data ? <CertificatesTable domain={domain} certificates={certificates.data} renewals={renewals} offset={offset} onOffset={setOffset} /> : null}
      <h3>Certificates from the CA (ACME)</h3>
      <Failure failure={acme.failure} />
      <Loading when={acme.loading && !acme.data} />
      {acme.data ? <AcmeJobs domain={domain} status={acme.data} /> : null}
      <h4>Request certificate</h4>
      <RequestCertificate domain={domain} onQueued={acme.reload} />
      <h4>Renew now</h4>
      <RenewNow domain={domain} onQueued={acme.reload} />
      <h3>Upload certificate</h3>
      <UploadCertificate domain={domain} onUploaded={() => (setOffset(0), certificates.reload(), acme.reload())} />
      <h3>Check what the edges serve</h3>
      <CheckServed domain={domain} />
    </div>
  );
}

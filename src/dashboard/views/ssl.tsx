import { Badge, DataTable, Empty, Failure, Loading, Values, When } from '../components.js';
import { api } from '../api.js';
import { SSL_SETTINGS_RULES } from '../api-schemas.js';
import type { Owner } from '../ownership.js';
import { useApi } from '../use-api.js';
import { REPORTED_FIELDS, ValuesForm } from '../values-form.js';
import type { Domain } from './domains.js';

type Ssl = { settings: Record<string, unknown>; certificates: { id: string; source: string; status: string; hostnames: string[]; issuer: string | null; not_before: number | null; not_after: number | null }[] };

/** The domain's SSL preferences and certificates. */
export function SslTab({ domain, owner }: { domain: Domain; owner?: Owner }) {
  const ssl = useApi<Ssl>(`/api/v1/domains/${domain.id}/ssl`);
  return (
    <div>
      <h2>SSL</h2>
      <Failure failure={ssl.failure} />
      <Loading when={ssl.loading && !ssl.data} />
      {ssl.data ? (
        <>
          {owner ? (
            <Values values={ssl.data.settings} skip={REPORTED_FIELDS} />
          ) : (
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
          )}
          <h3>Certificates</h3>
          {ssl.data.certificates.length === 0 ? <Empty>No certificate yet: certificate issuance is not built yet, so edges serve this domain over HTTP only.</Empty> : null}
          {ssl.data.certificates.length ? (
            <DataTable
              label={`Certificates of ${domain.domain}`}
              columns={['Hostnames', 'Status', 'Issuer', 'Expires']}
              rows={ssl.data.certificates}
              rowKey={(certificate) => certificate.id}
              cells={(certificate) => [
                certificate.hostnames.join(', '),
                <Badge tone={certificate.status === 'active' ? 'good' : 'warn'}>{certificate.status}</Badge>,
                certificate.issuer ?? certificate.source,
                <When at={certificate.not_after} />,
              ]}
            />
          ) : null}
        </>
      ) : null}
    </div>
  );
}

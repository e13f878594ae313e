import { Badge, Empty, Failure, Loading, TableBox, When } from '../components.js';
import { useApi } from '../use-api.js';
import type { Domain } from './domains.js';

type Ssl = { settings: Record<string, unknown>; certificates: { id: string; source: string; status: string; hostnames: string[]; issuer: string | null; not_before: number | null; not_after: number | null }[] };

/** The domain's SSL preferences and certificates. */
export function SslTab({ domain }: { domain: Domain }) {
  const ssl = useApi<Ssl>(`/api/v1/domains/${domain.id}/ssl`);
  return (
    <div>
      <h2>SSL</h2>
      <Failure failure={ssl.failure} />
      <Loading when={ssl.loading && !ssl.data} />
      {ssl.data ? (
        <>
          <dl class="settings">
            {Object.entries(ssl.data.settings)
              .filter(([key]) => key !== 'domain_id')
              .map(([key, value]) => (
                <div key={key}>
                  <dt>{key.replace(/_/g, ' ')}</dt>
                  <dd>{String(value)}</dd>
                </div>
              ))}
          </dl>
          <h3>Certificates</h3>
          {ssl.data.certificates.length === 0 ? <Empty>No certificate yet: certificate issuance is not built yet, so edges serve this domain over HTTP only.</Empty> : null}
          {ssl.data.certificates.length ? (
            <TableBox label={`Certificates of ${domain.domain}`}>
              <table>
                <caption class="visually-hidden">Certificates of {domain.domain}</caption>
                <thead>
                  <tr>
                    <th scope="col">Hostnames</th>
                    <th scope="col">Status</th>
                    <th scope="col">Issuer</th>
                    <th scope="col">Expires</th>
                  </tr>
                </thead>
                <tbody>
                  {ssl.data.certificates.map((certificate) => (
                    <tr key={certificate.id}>
                      <td>{certificate.hostnames.join(', ')}</td>
                      <td>
                        <Badge tone={certificate.status === 'active' ? 'good' : 'warn'}>{certificate.status}</Badge>
                      </td>
                      <td>{certificate.issuer ?? certificate.source}</td>
                      <td>
                        <When at={certificate.not_after} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableBox>
          ) : null}
        </>
      ) : null}
    </div>
  );
}

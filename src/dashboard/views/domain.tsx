import { useRoute } from 'preact-iso';
import { Badge, Failure, Loading } from '../components.js';
import { useApi } from '../use-api.js';
import { useOwnership } from '../ownership.js';
import { STATUS_TONE, type Domain } from './domains.js';
import { RecordsTab } from './records.js';

const TABS = [{ id: 'dns', label: 'DNS records' }] as const;

/** One domain: its status, who owns it (git or the API) and a tab per part of its configuration. */
export function DomainView() {
  const { params } = useRoute();
  const domain = useApi<Domain>(`/api/v1/domains/${encodeURIComponent(params.id)}`);
  const ownership = useOwnership();
  const owner = domain.data ? ownership.of(domain.data.domain) : undefined;
  return (
    <section aria-labelledby="domain-title">
      <Failure failure={domain.failure} />
      <Loading when={domain.loading && !domain.data} />
      {domain.data ? (
        <>
          <h1 id="domain-title">{domain.data.domain}</h1>
          <p>
            <Badge tone={STATUS_TONE[domain.data.status] ?? 'neutral'}>{domain.data.status.replace('_', ' ')}</Badge>{' '}
            {owner ? (
              <Badge tone="git" title={`owned by ${owner.repo}`}>
                {owner.file}
                {owner.commit ? ` @ ${owner.commit.slice(0, 8)}` : ''}
              </Badge>
            ) : (
              <span class="muted">managed through the API</span>
            )}
          </p>
          {owner ? (
            <p class="note">
              This domain is described in <code>{owner.file}</code> of {owner.repo}. Its items are read-only here: change the file in a pull request (each item offers its YAML), or the controller reverts the edit or reports it as drift.
            </p>
          ) : null}
          <div role="tablist" aria-label="Configuration">
            {TABS.map((tab) => (
              <button key={tab.id} type="button" role="tab" aria-selected="true" id={`tab-${tab.id}`} aria-controls={`panel-${tab.id}`}>
                {tab.label}
              </button>
            ))}
          </div>
          <div role="tabpanel" id="panel-dns" aria-labelledby="tab-dns">
            <RecordsTab domain={domain.data} owner={owner} isNotInGit={(key) => ownership.isNotInGit(domain.data!.domain, 'record', key)} />
          </div>
        </>
      ) : null}
    </section>
  );
}

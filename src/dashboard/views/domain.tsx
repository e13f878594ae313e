import { useLocation, useRoute } from 'preact-iso';
import { Badge, Failure, Loading } from '../components.js';
import { useApi } from '../use-api.js';
import { useOwnership } from '../ownership.js';
import { usePageTitle } from '../page-title.js';
import { STATUS_TONE, type Domain } from './domains.js';
import { AnalyticsTab } from './analytics.js';
import { CacheTab } from './cache.js';
import { DeleteDomain } from './domain-delete.js';
import { type Delegation, Onboarding } from './domain-onboarding.js';
import { OriginsTab } from './origins.js';
import { RecordsTab } from './records.js';
import { RulesTab } from './rules.js';
import { SecurityTab } from './security.js';
import { SslTab } from './ssl.js';

const TABS = [
  { id: 'dns', label: 'DNS records' },
  { id: 'origins', label: 'Origins' },
  { id: 'rules', label: 'Rules' },
  { id: 'cache', label: 'Cache' },
  { id: 'ssl', label: 'SSL' },
  { id: 'analytics', label: 'Analytics' },
  { id: 'security', label: 'Security' },
] as const;

/**
 * One domain: its status, who owns it (git or the API), its onboarding until its delegation is
 * seen, a tab per part of its configuration, and its deletion.
 */
export function DomainView() {
  const { params } = useRoute();
  const { query } = useLocation();
  const tab = TABS.find((item) => item.id === query.tab)?.id ?? 'dns';
  const domain = useApi<Domain & Delegation>(`/api/v1/domains/${encodeURIComponent(params.id)}`);
  const ownership = useOwnership();
  const owner = domain.data ? ownership.of(domain.data.domain) : undefined;
  const notInGit = (resource: string) => (key: string) => ownership.isNotInGit(domain.data!.domain, resource, key);
  usePageTitle(domain.data ? `${domain.data.domain} · ${TABS.find((item) => item.id === tab)!.label}` : 'Domain');
  return (
    <section aria-labelledby="domain-title">
      <Failure failure={domain.failure} />
      <Loading when={(domain.loading && !domain.data) || (!ownership.known && !ownership.failure)} />
      {ownership.failure && !ownership.known ? <p class="failure">Could not tell whether a GitOps repository owns this domain ({ownership.failure.message}); it is not offered for editing until that is known. Reload to try again.</p> : null}
      {domain.data && ownership.known ? (
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
          <Onboarding key={domain.data.id} domain={domain.data} onChange={domain.reload} />
          <nav class="tabs" aria-label="Sections of this domain">
            {TABS.map((item) => (
              <a key={item.id} href={`/domains/${domain.data!.id}?tab=${item.id}`} aria-current={item.id === tab ? 'page' : undefined}>
                {item.label}
              </a>
            ))}
          </nav>
          {tab === 'dns' ? <RecordsTab domain={domain.data} owner={owner} isNotInGit={notInGit('record')} /> : null}
          {tab === 'origins' ? <OriginsTab domain={domain.data} owner={owner} isNotInGit={notInGit('origin')} /> : null}
          {tab === 'rules' ? <RulesTab domain={domain.data} owner={owner} isNotInGit={(section, key) => ownership.isNotInGit(domain.data!.domain, section, key)} /> : null}
          {tab === 'cache' ? <CacheTab domain={domain.data} owner={owner} /> : null}
          {tab === 'ssl' ? <SslTab domain={domain.data} owner={owner} /> : null}
          {tab === 'analytics' ? <AnalyticsTab domain={domain.data} /> : null}
          {tab === 'security' ? <SecurityTab domain={domain.data} /> : null}
          <DeleteDomain key={domain.data.id} domain={domain.data} owner={owner} />
        </>
      ) : null}
    </section>
  );
}

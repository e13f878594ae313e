import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api } from '../api.js';
import { Badge, DataTable, Empty, Failure, Loading, PAGE_SIZE, Pager } from '../components.js';
import { useApi } from '../use-api.js';
import { useSubmit } from '../use-submit.js';
import { type Ownership, useOwnership } from '../ownership.js';
import { FieldError, FormFailure } from '../field-error.js';

export type Domain = { id: string; domain: string; status: string; zone_name: string; created_at: number };

export const STATUS_TONE: Record<string, 'good' | 'warn' | 'neutral'> = { active: 'good', pending_nameserver: 'warn', disabled: 'neutral' };

function AddDomain({ onAdded }: { onAdded: (domain: Domain) => void }) {
  const [name, setName] = useState('');
  const { failure, submit, changed } = useSubmit(async () => {
    const { data } = await api<{ data: Domain }>('POST', '/api/v1/domains', { domain: name });
    setName('');
    onAdded(data);
  });
  return (
    <form class="inline" onSubmit={submit} aria-label="Add a domain">
      <label>
        New domain
        <input name="domain" placeholder="example.com" required value={name} onInput={(event) => (setName(event.currentTarget.value), changed('domain'))} aria-describedby="domain-error" />
      </label>
      <button type="submit">Add domain</button>
      <FieldError id="domain-error" failure={failure} field="domain" />
      <FormFailure failure={failure} fields={['domain']} />
    </form>
  );
}

// Who manages a domain no repository owns: the API, once the GitOps status says so (it may yet name a file).
function managedByApi(ownership: Ownership): string {
  if (ownership.known) return 'API';
  return ownership.failure ? 'unknown (GitOps status unavailable)' : 'checking…';
}

/** Every domain, searchable by name and filtered by status, a page at a time. */
export function DomainsView() {
  const { route } = useLocation();
  const [q, setQ] = useState('');
  const [status, setStatus] = useState('');
  const [offset, setOffset] = useState(0);
  const query = new URLSearchParams({ limit: String(PAGE_SIZE), offset: String(offset) });
  if (q.trim()) query.set('q', q.trim());
  if (status) query.set('status', status);
  const domains = useApi<Domain[]>(`/api/v1/domains?${query}`);
  const ownership = useOwnership();
  return (
    <section aria-labelledby="domains-title">
      <h1 id="domains-title">Domains</h1>
      <AddDomain onAdded={(domain) => route(`/domains/${domain.id}`)} />
      <div class="filters" role="search">
        <label>
          Search
          <input type="search" name="q" value={q} onInput={(event) => (setQ(event.currentTarget.value), setOffset(0))} />
        </label>
        <label>
          Status
          <select name="status" value={status} onChange={(event) => (setStatus(event.currentTarget.value), setOffset(0))}>
            <option value="">any</option>
            <option value="active">active</option>
            <option value="pending_nameserver">pending nameserver</option>
            <option value="disabled">disabled</option>
          </select>
        </label>
      </div>
      <Failure failure={domains.failure} />
      <Loading when={domains.loading && !domains.data} />
      {domains.data && domains.data.length === 0 ? <Empty>{q || status ? 'No domain matches.' : 'No domains yet: add one above, or describe them in a GitOps repository.'}</Empty> : null}
      {domains.data?.length ? (
        <DataTable
          label="Domains"
          columns={['Domain', 'Status', 'Managed by']}
          rows={domains.data}
          rowKey={(domain) => domain.id}
          cells={(domain) => {
            const owner = ownership.of(domain.domain);
            return [
              <a href={`/domains/${domain.id}`}>{domain.domain}</a>,
              <Badge tone={STATUS_TONE[domain.status] ?? 'neutral'}>{domain.status.replace('_', ' ')}</Badge>,
              owner ? (
                <Badge tone="git" title={`${owner.repo} at ${owner.commit ?? 'unknown commit'}`}>
                  {owner.file}
                </Badge>
              ) : (
                managedByApi(ownership)
              ),
            ];
          }}
        />
      ) : null}
      <Pager offset={offset} count={domains.data?.length ?? 0} onOffset={setOffset} />
    </section>
  );
}

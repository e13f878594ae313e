import { useState } from 'preact/hooks';
import { Commit } from '../commit-link.js';
import type { ApiFailure } from '../api.js';
import { DataTable, Empty, Loading, PAGE_SIZE, Pager, When } from '../components.js';
import { FieldError, FormFailure } from '../field-error.js';
import { useApi } from '../use-api.js';

type AuditEvent = {
  id: string;
  actor: string;
  actor_type: string;
  action: string;
  target_type: string;
  target_id: string | null;
  target_name: string | null;
  domain_name: string | null;
  gitops_repo: string | null;
  gitops_commit: string | null;
  created_at: number;
};
type Filters = { actor: string; action: string; target: string; from: string; to: string };

const NO_FILTERS: Filters = { actor: '', action: '', target: '', from: '', to: '' };
// Resources and the actions people look for most, offered as they type (any action of docs/api.md is accepted).
const ACTIONS = ['domain', 'dns_record', 'origin', 'redirect', 'rate_limit', 'waf_rule', 'header_rule', 'ip_rule', 'cache_rule', 'page_rule', 'routing', 'geo_routes', 'cache_settings', 'cache', 'ssl_settings', 'settings', 'anycast', 'gitops', 'admin', 'snapshot', 'domain.create', 'domain.delete', 'dns_record.create', 'dns_record.update', 'dns_record.delete', 'gitops.reconcile', 'gitops.accept_refused_plan', 'admin.login'];
const FIELDS = ['actor', 'action', 'target', 'from', 'to'];

// A datetime-local value (the viewer's time zone, to the minute) as unix seconds; `to` takes in its whole minute.
function unixOf(value: string, endOfMinute = false): string {
  return String(Math.floor(new Date(value).getTime() / 1000) + (endOfMinute ? 60 : 0));
}

function queryOf(filters: Filters, offset: number): string {
  const query = new URLSearchParams({ limit: String(PAGE_SIZE), offset: String(offset) });
  for (const name of ['actor', 'action', 'target'] as const) if (filters[name].trim()) query.set(name, filters[name].trim());
  if (filters.from) query.set('from', unixOf(filters.from));
  if (filters.to) query.set('to', unixOf(filters.to, true));
  return query.toString();
}

/** What an event changed, by name: a deleted item keeps the name it had; a rule or origin names its domain too. */
function Target({ event }: { event: AuditEvent }) {
  const name = event.target_name ?? event.target_id ?? '';
  const domain = event.domain_name && !name.endsWith(event.domain_name) ? ` on ${event.domain_name}` : '';
  return (
    <>
      {name} <span class="muted">({event.target_type.replace(/_/g, ' ')}{domain})</span>
    </>
  );
}

/** The search form; a refused value is named under its input. */
function FilterForm({ failure, onApply }: { failure?: ApiFailure; onApply: (filters: Filters) => void }) {
  const [draft, setDraft] = useState(NO_FILTERS);
  // The refusal sits beside the label, not in it: it describes the input without becoming its name.
  const field = (name: keyof Filters, label: string, extra: Record<string, string> = {}) => (
    <>
      <label>
        {label}
        <input name={name} value={draft[name]} onInput={(event) => setDraft({ ...draft, [name]: event.currentTarget.value })} aria-describedby={`audit-${name}-error`} {...extra} />
      </label>
      <FieldError id={`audit-${name}-error`} failure={failure} field={name} />
    </>
  );
  return (
    <form
      class="filters"
      role="search"
      aria-label="Search the audit log"
      onSubmit={(event) => {
        event.preventDefault();
        onApply(draft);
      }}
    >
      {field('actor', 'Who', { placeholder: 'username or api-token' })}
      {field('action', 'Action', { list: 'audit-actions', placeholder: 'dns_record or dns_record.delete' })}
      <datalist id="audit-actions">
        {ACTIONS.map((action) => (
          <option key={action} value={action} />
        ))}
      </datalist>
      {field('target', 'Target (name, apex or id)', { placeholder: 'shop.example' })}
      {field('from', 'From', { type: 'datetime-local' })}
      {field('to', 'To', { type: 'datetime-local' })}
      <button type="submit">Search</button>
      <button
        type="button"
        class="secondary"
        onClick={() => {
          setDraft(NO_FILTERS);
          onApply(NO_FILTERS);
        }}
      >
        Clear
      </button>
      <FormFailure failure={failure} fields={FIELDS} />
    </form>
  );
}

/** The audit log, newest first, searchable by who, action, target and time; GitOps writes show their repository and commit. */
export function AuditView() {
  const [filters, setFilters] = useState(NO_FILTERS);
  const [offset, setOffset] = useState(0);
  const events = useApi<AuditEvent[]>(`/api/v1/audit?${queryOf(filters, offset)}`);
  const filtered = Object.values(filters).some(Boolean);
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <FilterForm
        failure={events.failure}
        onApply={(next) => {
          setFilters(next);
          setOffset(0);
        }}
      />
      <Loading when={events.loading && !events.data} />
      {events.data && events.data.length === 0 ? <Empty>{filtered ? 'No event matches.' : 'Nothing has been changed yet.'}</Empty> : null}
      {events.data?.length ? (
        <DataTable
          label="Audit events"
          columns={['When', 'Who', 'Action', { label: 'Target', wrap: true }, { label: 'From git', wrap: true }]}
          rows={events.data}
          rowKey={(event) => event.id}
          cells={(event) => [
            <When at={event.created_at} />,
            <>
              {event.actor} <span class="muted">({event.actor_type})</span>
            </>,
            <code>{event.action}</code>,
            <Target event={event} />,
            event.gitops_repo ? (
              <>
                {event.gitops_repo} @ <Commit repo={event.gitops_repo} sha={event.gitops_commit} />
              </>
            ) : (
              <span class="muted">—</span>
            ),
          ]}
        />
      ) : null}
      <Pager offset={offset} count={events.data?.length ?? 0} onOffset={setOffset} />
    </section>
  );
}

import { useState } from 'preact/hooks';
import { ApiFailure, api } from '../api.js';
import { DataTable, Empty, Failure, FocusedPanel, Loading, PAGE_SIZE, Pager } from '../components.js';
import { Field, FormFailure } from '../field-error.js';
import { SourceCell, YamlSnippet } from '../item-source.js';
import { JsonEditor } from '../json-editor.js';
import type { Owner } from '../ownership.js';
import { deleteAfterAsking } from '../delete-item.js';
import { useApi } from '../use-api.js';
import { failureOf, useSubmit } from '../use-submit.js';
import type { Domain } from './domains.js';

type DnsRecord = { id: string; type: string; name: string; fqdn: string; content: string; ttl: number; proxied: boolean; routing_policy: string; enabled: boolean };

const TYPES = ['A', 'AAAA', 'CNAME', 'TXT', 'MX', 'NS', 'SRV', 'CAA'];
const FIELDS = ['type', 'name', 'content', 'ttl', 'proxied'];

/** The record as a line of the domain file's `records:` list, for a pull request. */
export function recordYaml(record: Pick<DnsRecord, 'type' | 'name' | 'content' | 'ttl' | 'proxied'>): string {
  const parts = [`type: ${record.type}`, `name: ${JSON.stringify(record.name)}`, `content: ${JSON.stringify(record.content)}`];
  if (record.ttl !== 300) parts.push(`ttl: ${record.ttl}`);
  if (record.proxied) parts.push('proxied: true');
  return `  - { ${parts.join(', ')} }`;
}

type RecordDraft = { type: string; name: string; content: string; ttl: string; proxied: boolean };

const EMPTY: RecordDraft = { type: 'A', name: '', content: '', ttl: '300', proxied: false };

// The fields of the draft that differ from the record being edited (a PATCH), or all of them (a POST).
function bodyOf(draft: RecordDraft, editing?: DnsRecord): Record<string, unknown> {
  const body: Record<string, unknown> = { type: draft.type, name: draft.name, content: draft.content, ttl: Number(draft.ttl), proxied: draft.proxied };
  if (!editing) return body;
  return Object.fromEntries(Object.entries(body).filter(([key, value]) => value !== editing[key as keyof DnsRecord]));
}

/** Adds a record, or edits one (`editing`): the API's refusal is shown next to the field it names. */
function RecordForm({ domain, editing, onDone }: { domain: Domain; editing?: DnsRecord; onDone: () => void }) {
  const [form, setForm] = useState<RecordDraft>(editing ? { ...editing, ttl: String(editing.ttl) } : EMPTY);
  const { failure, submit, changed } = useSubmit(async () => {
    if (editing) await api('PATCH', `/api/v1/domains/${domain.id}/dns/records/${editing.id}`, bodyOf(form, editing));
    else await api('POST', `/api/v1/domains/${domain.id}/dns/records`, bodyOf(form));
    setForm(editing ? form : { ...form, name: '', content: '' });
    onDone();
  });
  const set = (field: keyof RecordDraft) => (event: Event) => {
    const input = event.currentTarget as HTMLInputElement;
    setForm({ ...form, [field]: input.type === 'checkbox' ? input.checked : input.value });
    changed(field);
  };
  const id = (field: string) => `record-${editing ? 'edit' : 'add'}-${field}-error`;
  return (
    <form class="record-form" onSubmit={submit} aria-label={editing ? `Edit ${editing.type} ${editing.fqdn}` : 'Add a DNS record'}>
      <Field errorId={id('type')} failure={failure} field="type">
        Type
        <select name="type" value={form.type} onChange={set('type')} aria-describedby={id('type')}>
          {TYPES.map((type) => (
            <option key={type}>{type}</option>
          ))}
        </select>
      </Field>
      <Field errorId={id('name')} failure={failure} field="name">
        Name
        <input name="name" placeholder="www or @" required value={form.name} onInput={set('name')} aria-describedby={id('name')} />
      </Field>
      <Field errorId={id('content')} failure={failure} field="content">
        Content
        <input name="content" placeholder="192.0.2.1" required value={form.content} onInput={set('content')} aria-describedby={id('content')} />
      </Field>
      <Field errorId={id('ttl')} failure={failure} field="ttl">
        TTL
        <input name="ttl" type="number" min={60} max={86400} value={form.ttl} onInput={set('ttl')} aria-describedby={id('ttl')} />
      </Field>
      <Field errorId={id('proxied')} failure={failure} field="proxied" check>
        <input name="proxied" type="checkbox" checked={form.proxied} onChange={set('proxied')} aria-describedby={id('proxied')} />
        Proxied
      </Field>
      <button type="submit">{editing ? 'Save record' : 'Add record'}</button>
      <FormFailure failure={failure} fields={FIELDS} />
    </form>
  );
}

type GeoRoute = { id: string; scope: string; code: string | null; target: string };

/** A record's geo routes (answers by the client's country, continent or region), read when opened; replaced as JSON when editable. */
function GeoRoutes({ domain, record, editable }: { domain: Domain; record: DnsRecord; editable: boolean }) {
  const path = `/api/v1/domains/${domain.id}/dns/records/${record.id}/geo-routes`;
  const routes = useApi<GeoRoute[]>(path);
  if (routes.failure && !routes.data) return <Failure failure={routes.failure} />;
  if (!routes.data) return <Loading when />;
  return (
    <>
      {routes.data.length === 0 ? <span class="muted">no routes: every client gets the content</span> : null}
      <ul class="geo">
        {routes.data.map((route) => (
          <li key={route.id}>
            {route.scope}
            {route.code ? ` ${route.code}` : ''} → {route.target}
          </li>
        ))}
      </ul>
      {editable ? (
        <JsonEditor
          label={`Geo routes of ${record.fqdn} as JSON`}
          initial={routes.data.map(({ scope, code, target }) => (code ? { scope, code, target } : { scope, target }))}
          submitLabel="Save routes"
          onSave={async (value) => {
            await api('PUT', path, { routes: value });
            routes.reload();
          }}
        />
      ) : null}
    </>
  );
}

function Routing({ domain, record, editable }: { domain: Domain; record: DnsRecord; editable: boolean }) {
  if (record.routing_policy !== 'geo') return <>{record.routing_policy}</>;
  return (
    <details>
      <summary>geo routes</summary>
      <GeoRoutes domain={domain} record={record} editable={editable} />
    </details>
  );
}

function ProxiedToggle({ domain, record, onChanged }: { domain: Domain; record: DnsRecord; onChanged: (failure?: ApiFailure) => void }) {
  async function toggle() {
    try {
      await api('PATCH', `/api/v1/domains/${domain.id}/dns/records/${record.id}`, { proxied: !record.proxied });
      onChanged();
    } catch (error) {
      onChanged(failureOf(error));
    }
  }
  return (
    <label class="check">
      <input type="checkbox" checked={record.proxied} onChange={toggle} />
      <span class="visually-hidden">Proxy {record.fqdn}</span>
      {record.proxied ? 'proxied' : 'DNS only'}
    </label>
  );
}

/** The domain's DNS records: editable through the API, or read-only with their YAML when git owns them. */
export function RecordsTab({ domain, owner, isNotInGit }: { domain: Domain; owner?: Owner; isNotInGit: (key: string) => boolean }) {
  const [offset, setOffset] = useState(0);
  const [failure, setFailure] = useState<ApiFailure>();
  const [yamlOf, setYamlOf] = useState<string>();
  const [editing, setEditing] = useState<DnsRecord>();
  const records = useApi<DnsRecord[]>(`/api/v1/domains/${domain.id}/dns/records?limit=${PAGE_SIZE}&offset=${offset}`);
  const editable = (record: DnsRecord) => !owner || isNotInGit(`${record.type} ${record.name} ${record.content}`);
  const remove = (record: DnsRecord) => deleteAfterAsking(`Delete ${record.type} ${record.fqdn} ${record.content}?`, `/api/v1/domains/${domain.id}/dns/records/${record.id}`, setFailure, records.reload);
  return (
    <div>
      <h2>DNS records</h2>
      {owner ? null : <RecordForm domain={domain} onDone={records.reload} />}
      <Failure failure={records.failure ?? failure} />
      <Loading when={records.loading && !records.data} />
      {records.data && records.data.length === 0 ? <Empty>No DNS records yet.</Empty> : null}
      {records.data?.length ? (
        <DataTable
          label={`DNS records of ${domain.domain}`}
          columns={['Type', 'Name', { label: 'Content', wrap: true }, 'TTL', 'Proxy', 'Routing', 'Source']}
          rows={records.data}
          rowKey={(record) => record.id}
          cells={(record) => [
            record.type,
            record.name,
            record.content,
            record.ttl,
            editable(record) ? <ProxiedToggle domain={domain} record={record} onChanged={(problem) => (setFailure(problem), records.reload())} /> : record.proxied ? 'proxied' : 'DNS only',
            <Routing domain={domain} record={record} editable={editable(record)} />,
            <SourceCell
              item={`${record.type} ${record.fqdn}`}
              owner={owner}
              ownedByGit={!editable(record)}
              onYaml={() => setYamlOf(recordYaml(record))}
              onEdit={() => setEditing(record)}
              onDelete={() => remove(record)}
            />,
          ]}
        />
      ) : null}
      <Pager offset={offset} count={records.data?.length ?? 0} onOffset={setOffset} />
      {editing ? (
        <FocusedPanel label={`Edit ${editing.type} ${editing.fqdn}`}>
          <h3>
            Edit {editing.type} {editing.fqdn}
          </h3>
          <RecordForm key={editing.id} domain={domain} editing={editing} onDone={() => (setEditing(undefined), records.reload())} />
          <button type="button" class="secondary" onClick={() => setEditing(undefined)}>
            Cancel
          </button>
        </FocusedPanel>
      ) : null}
      <YamlSnippet yaml={yamlOf} section="records" owner={owner} />
    </div>
  );
}

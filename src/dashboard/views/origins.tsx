import { useState } from 'preact/hooks';
import { ApiFailure, api } from '../api.js';
import { ORIGIN_RULES } from '../api-schemas.js';
import { Badge, DataTable, Empty, Failure, FocusedPanel, Loading, PAGE_SIZE, Pager } from '../components.js';
import { Field, FormFailure } from '../field-error.js';
import type { Owner } from '../ownership.js';
import { deleteAfterAsking } from '../delete-item.js';
import { SourceCell, YamlSnippet } from '../item-source.js';
import { useApi } from '../use-api.js';
import { useSubmit } from '../use-submit.js';
import { ValuesForm } from '../values-form.js';
import type { Domain } from './domains.js';

type Origin = { id: string; scheme: string; host: string; port: number; role: string; weight: number; enabled: boolean; drained: boolean; health_status: string };

const HEALTH_TONE: Record<string, 'good' | 'bad' | 'neutral'> = { healthy: 'good', unhealthy: 'bad' };

/** The origin as a line of the domain file's `origins:` list. */
function originYaml(origin: Origin): string {
  return `  - { host: ${origin.host}, scheme: ${origin.scheme}, port: ${origin.port}, role: ${origin.role}, weight: ${origin.weight} }`;
}

function AddOrigin({ domain, onAdded }: { domain: Domain; onAdded: () => void }) {
  const [form, setForm] = useState({ host: '', role: 'primary', weight: '100' });
  const { failure, submit, changed } = useSubmit(async () => {
    await api('POST', `/api/v1/domains/${domain.id}/origins`, { host: form.host, role: form.role, weight: Number(form.weight) });
    setForm({ ...form, host: '' });
    onAdded();
  });
  return (
    <form class="record-form" onSubmit={submit} aria-label="Add an origin">
      <Field errorId="origin-host-error" failure={failure} field="host">
        Host
        <input name="host" required value={form.host} onInput={(event) => (setForm({ ...form, host: event.currentTarget.value }), changed('host'))} aria-describedby="origin-host-error" />
      </Field>
      <label>
        Role
        <select name="role" value={form.role} onChange={(event) => setForm({ ...form, role: event.currentTarget.value })}>
          <option>primary</option>
          <option>backup</option>
        </select>
      </label>
      <Field errorId="origin-weight-error" failure={failure} field="weight">
        Weight
        <input name="weight" type="number" min={1} max={1000} value={form.weight} onInput={(event) => (setForm({ ...form, weight: event.currentTarget.value }), changed('weight'))} aria-describedby="origin-weight-error" />
      </Field>
      <button type="submit">Add origin</button>
      <FormFailure failure={failure} fields={['host', 'weight']} />
    </form>
  );
}

/** The domain's origins with role, weight and health; added, edited and deleted through the API unless git owns them. */
export function OriginsTab({ domain, owner, isNotInGit }: { domain: Domain; owner?: Owner; isNotInGit: (key: string) => boolean }) {
  const [offset, setOffset] = useState(0);
  const origins = useApi<Origin[]>(`/api/v1/domains/${domain.id}/origins?limit=${PAGE_SIZE}&offset=${offset}`);
  const [yaml, setYaml] = useState<string>();
  const [failure, setFailure] = useState<ApiFailure>();
  const [editing, setEditing] = useState<Origin>();
  // Git owns the domain's origins, except those its last plan kept though the file does not list them.
  const ownedByGit = (origin: Origin) => owner !== undefined && !isNotInGit(`${origin.scheme}://${origin.host}:${origin.port}`);
  const remove = (origin: Origin) => deleteAfterAsking(`Delete origin ${origin.host}?`, `/api/v1/domains/${domain.id}/origins/${origin.id}`, setFailure, origins.reload);
  return (
    <div>
      <h2>Origins</h2>
      {owner ? null : <AddOrigin domain={domain} onAdded={origins.reload} />}
      <Failure failure={origins.failure ?? failure} />
      <Loading when={origins.loading && !origins.data} />
      {origins.data && origins.data.length === 0 ? <Empty>No origins: proxied records of this domain have nowhere to go.</Empty> : null}
      {origins.data?.length ? (
        <DataTable
          label={`Origins of ${domain.domain}`}
          columns={['Origin', 'Role', 'Weight', 'Health', 'Source']}
          rows={origins.data}
          rowKey={(origin) => origin.id}
          cells={(origin) => [
            `${origin.scheme}://${origin.host}:${origin.port}${origin.enabled ? '' : ' (disabled)'}${origin.drained ? ' (drained)' : ''}`,
            origin.role,
            origin.weight,
            <Badge tone={HEALTH_TONE[origin.health_status] ?? 'neutral'}>{origin.health_status}</Badge>,
            <SourceCell
              item={`origin ${origin.host}`}
              owner={owner}
              ownedByGit={ownedByGit(origin)}
              onYaml={() => setYaml(originYaml(origin))}
              onEdit={() => setEditing(origin)}
              onDelete={() => remove(origin)}
            />,
          ]}
        />
      ) : null}
      <Pager offset={offset} count={origins.data?.length ?? 0} onOffset={setOffset} />
      {editing ? (
        <FocusedPanel label={`Edit origin ${editing.host}`}>
          <h3>Edit origin {editing.host}</h3>
          <ValuesForm
            key={editing.id}
            label={`Origin ${editing.host}`}
            values={{ host: editing.host, port: editing.port, role: editing.role, weight: editing.weight, enabled: editing.enabled, drained: editing.drained }}
            fields={ORIGIN_RULES}
            onSave={async (changed) => {
              await api('PATCH', `/api/v1/domains/${domain.id}/origins/${editing.id}`, changed);
              setEditing(undefined);
              origins.reload();
            }}
          />
          <button type="button" class="secondary" onClick={() => setEditing(undefined)}>
            Cancel
          </button>
        </FocusedPanel>
      ) : null}
      <YamlSnippet yaml={yaml} section="origins" owner={owner} />
    </div>
  );
}

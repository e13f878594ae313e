import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { CACHE_SETTINGS_RULES } from '../api-schemas.js';
import { Badge, DataTable, Empty, Failure, Values, When } from '../components.js';
import { Field, FormFailure } from '../field-error.js';
import type { Owner } from '../ownership.js';
import { useApi } from '../use-api.js';
import { useSubmit } from '../use-submit.js';
import { REPORTED_FIELDS, ValuesForm } from '../values-form.js';
import type { Domain } from './domains.js';

type Purge = { id: string; scope: string; value: string | null; status: string; error: string | null; created_at: number; completed_at: number | null };

const PURGE_TONE: Record<string, 'good' | 'warn' | 'bad' | 'neutral'> = { completed: 'good', queued: 'neutral', in_progress: 'warn', failed: 'bad' };
const POLL_MS = 1000;


function PurgeForm({ domain, onPurged }: { domain: Domain; onPurged: () => void }) {
  const [scope, setScope] = useState('everything');
  const [value, setValue] = useState('');
  const { failure, submit, changed } = useSubmit(async () => {
    await api('POST', `/api/v1/domains/${domain.id}/cache/purge`, scope === 'everything' ? { scope } : { scope, value: value || undefined });
    setValue('');
    onPurged();
  });
  return (
    <form class="record-form" onSubmit={submit} aria-label="Purge the cache">
      <label>
        Scope
        <select name="scope" value={scope} onChange={(event) => setScope(event.currentTarget.value)}>
          <option value="everything">everything</option>
          <option value="url">one URL</option>
          <option value="prefix">a path prefix</option>
          <option value="domain">one hostname</option>
        </select>
      </label>
      {scope === 'everything' ? null : (
        <Field errorId="purge-value-error" failure={failure} field="value">
          Value
          <input name="value" value={value} placeholder={scope === 'domain' ? domain.domain : '/images/'} onInput={(event) => (setValue(event.currentTarget.value), changed('value'))} aria-describedby="purge-value-error" />
        </Field>
      )}
      <button type="submit">Purge</button>
      <FormFailure failure={failure} fields={['value']} />
    </form>
  );
}

/** Cache settings, and purges with their progress from queued to completed (polled while one is open). */
export function CacheTab({ domain, owner }: { domain: Domain; owner?: Owner }) {
  const settings = useApi<Record<string, unknown>>(`/api/v1/domains/${domain.id}/cache/settings`);
  const purges = useApi<Purge[]>(`/api/v1/domains/${domain.id}/cache/purge-requests?limit=20`);
  const open = purges.data?.some((purge) => purge.status === 'queued' || purge.status === 'in_progress') ?? false;
  useEffect(() => {
    if (!open) return;
    const timer = setTimeout(purges.reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [open, purges.data, purges.reload]);
  return (
    <div>
      <h2>Cache settings</h2>
      <Failure failure={settings.failure} />
      {settings.data && owner ? <Values values={settings.data} skip={REPORTED_FIELDS} /> : null}
      {settings.data && !owner ? (
        <ValuesForm
          label="Cache settings"
          values={settings.data}
          skip={REPORTED_FIELDS}
          fields={CACHE_SETTINGS_RULES}
          onSave={async (changed) => {
            const current = Object.fromEntries(Object.entries(settings.data!).filter(([key]) => !REPORTED_FIELDS.includes(key)));
            await api('PUT', `/api/v1/domains/${domain.id}/cache/settings`, { ...current, ...changed });
            settings.reload();
          }}
        />
      ) : null}
      <h2>Purge</h2>
      <PurgeForm domain={domain} onPurged={purges.reload} />
      <p class="visually-hidden" role="status">
        {open ? 'A purge is in progress.' : 'No purge is in progress.'}
      </p>
      <Failure failure={purges.failure} />
      {purges.data && purges.data.length === 0 ? <Empty>No purges yet.</Empty> : null}
      {purges.data?.length ? (
        <DataTable
          label={`Purges of ${domain.domain}`}
          columns={['Requested', 'Scope', 'Status', 'Completed']}
          rows={purges.data}
          rowKey={(purge) => purge.id}
          cells={(purge) => [
            <When at={purge.created_at} />,
            `${purge.scope}${purge.value ? ` ${purge.value}` : ''}`,
            <>
              <Badge tone={PURGE_TONE[purge.status] ?? 'neutral'}>{purge.status.replace('_', ' ')}</Badge>
              {purge.error ? ` ${purge.error}` : ''}
            </>,
            <When at={purge.completed_at} />,
          ]}
        />
      ) : null}
    </div>
  );
}

import { useState } from 'preact/hooks';
import { DataTable, Empty, Failure, Loading, PAGE_SIZE, Pager, When } from '../components.js';
import { useApi } from '../use-api.js';

type AuditEvent = { id: string; actor: string; actor_type: string; action: string; target_type: string; target_id: string | null; request_id: string | null; created_at: number };

/** The audit log, newest first. */
export function AuditView() {
  const [offset, setOffset] = useState(0);
  const events = useApi<AuditEvent[]>(`/api/v1/audit?limit=${PAGE_SIZE}&offset=${offset}`);
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <Failure failure={events.failure} />
      <Loading when={events.loading && !events.data} />
      {events.data && events.data.length === 0 ? <Empty>Nothing has been changed yet.</Empty> : null}
      {events.data?.length ? (
        <DataTable
          label="Audit events"
          columns={['When', 'Who', 'Action', { label: 'Target', wrap: true }]}
          rows={events.data}
          rowKey={(event) => event.id}
          cells={(event) => [
            <When at={event.created_at} />,
            <>
              {event.actor} <span class="muted">({event.actor_type})</span>
            </>,
            <code>{event.action}</code>,
            `${event.target_type} ${event.target_id ?? ''}`,
          ]}
        />
      ) : null}
      <Pager offset={offset} count={events.data?.length ?? 0} onOffset={setOffset} />
    </section>
  );
}

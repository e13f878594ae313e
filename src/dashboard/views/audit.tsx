import { useState } from 'preact/hooks';
import { Empty, Failure, Loading, PAGE_SIZE, Pager, TableBox, When } from '../components.js';
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
        <TableBox label="Audit events">
          <table>
            <caption class="visually-hidden">Audit events</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
              </tr>
            </thead>
            <tbody>
              {events.data.map((event) => (
                <tr key={event.id}>
                  <td>
                    <When at={event.created_at} />
                  </td>
                  <td>
                    {event.actor} <span class="muted">({event.actor_type})</span>
                  </td>
                  <td>
                    <code>{event.action}</code>
                  </td>
                  <td class="content">
                    {event.target_type} {event.target_id ?? ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableBox>
      ) : null}
      <Pager offset={offset} count={events.data?.length ?? 0} onOffset={setOffset} />
    </section>
  );
}

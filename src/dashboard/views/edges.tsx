import { useState } from 'preact/hooks';
import { Badge, Empty, Failure, Loading, PAGE_SIZE, Pager, TableBox, When } from '../components.js';
import { useApi } from '../use-api.js';

type Edge = { edge_id: string; hostname: string | null; public_ip: string | null; region: string | null; country: string | null; version: string | null; health_status: string; enabled: boolean; in_pool: boolean; last_heartbeat_at: number | null; heartbeat_age_seconds: number | null };

/** Every edge: version, last heartbeat, health, country, and whether it is in the serving pool. */
export function EdgesView() {
  const [offset, setOffset] = useState(0);
  const edges = useApi<Edge[]>(`/api/v1/edge/nodes?limit=${PAGE_SIZE}&offset=${offset}`);
  return (
    <section aria-labelledby="edges-title">
      <h1 id="edges-title">Edges</h1>
      <Failure failure={edges.failure} />
      <Loading when={edges.loading && !edges.data} />
      {edges.data && edges.data.length === 0 ? <Empty>No edge has registered yet: start one with `cdn edge` and an edge token (docs/edge.md).</Empty> : null}
      {edges.data?.length ? (
        <TableBox label="Edges">
          <table>
            <caption class="visually-hidden">Edges</caption>
            <thead>
              <tr>
                <th scope="col">Edge</th>
                <th scope="col">Version</th>
                <th scope="col">Last heartbeat</th>
                <th scope="col">Health</th>
                <th scope="col">Country</th>
                <th scope="col">Pool</th>
              </tr>
            </thead>
            <tbody>
              {edges.data.map((edge) => (
                <tr key={edge.edge_id}>
                  <td>
                    {edge.edge_id}
                    {edge.hostname ? <span class="muted"> {edge.hostname}</span> : null}
                  </td>
                  <td>{edge.version ?? '—'}</td>
                  <td>
                    <When at={edge.last_heartbeat_at} />
                    {edge.heartbeat_age_seconds !== null ? <span class="muted"> ({edge.heartbeat_age_seconds} s ago)</span> : null}
                  </td>
                  <td>
                    <Badge tone={edge.health_status === 'healthy' ? 'good' : 'bad'}>{edge.health_status}</Badge>
                  </td>
                  <td>{edge.country ?? '—'}</td>
                  <td>{edge.in_pool ? <Badge tone="good">serving</Badge> : <Badge tone="neutral">{edge.enabled ? 'out of pool' : 'disabled'}</Badge>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableBox>
      ) : null}
      <Pager offset={offset} count={edges.data?.length ?? 0} onOffset={setOffset} />
    </section>
  );
}

import { useState } from 'preact/hooks';
import { Badge, DataTable, Empty, Failure, Loading, PAGE_SIZE, Pager, When } from '../components.js';
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
        <DataTable
          label="Edges"
          columns={['Edge', 'Version', 'Last heartbeat', 'Health', 'Country', 'Pool']}
          rows={edges.data}
          rowKey={(edge) => edge.edge_id}
          cells={(edge) => [
            <>
              {edge.edge_id}
              {edge.hostname ? <span class="muted"> {edge.hostname}</span> : null}
            </>,
            edge.version ?? '—',
            <>
              <When at={edge.last_heartbeat_at} />
              {edge.heartbeat_age_seconds !== null ? <span class="muted"> ({edge.heartbeat_age_seconds} s ago)</span> : null}
            </>,
            <Badge tone={edge.health_status === 'healthy' ? 'good' : 'bad'}>{edge.health_status}</Badge>,
            edge.country ?? '—',
            edge.in_pool ? <Badge tone="good">serving</Badge> : <Badge tone="neutral">{edge.enabled ? 'out of pool' : 'disabled'}</Badge>,
          ]}
        />
      ) : null}
      <Pager offset={offset} count={edges.data?.length ?? 0} onOffset={setOffset} />
    </section>
  );
}

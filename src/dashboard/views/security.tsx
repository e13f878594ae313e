import { useMemo, useState } from 'preact/hooks';
import { Bars, lastDay, TimeChart } from '../chart.js';
import { DataTable, Empty, Failure, PAGE_SIZE, Pager, When } from '../components.js';
import { useApi } from '../use-api.js';
import type { Domain } from './domains.js';

type Summary = { total: number; by_action: Record<string, number>; top_countries: { country: string | null; count: number }[]; series: { bucket_start: number; total: number }[] };
type SecurityEvent = { id: string; kind: string; action: string; method: string | null; path: string | null; client_country: string | null; occurred_at: number };

/** Security events over the last day and the newest events, a page at a time. */
export function SecurityTab({ domain }: { domain: Domain }) {
  const [offset, setOffset] = useState(0);
  const summary = useApi<Summary>(`/api/v1/security/summary?domain_id=${domain.id}`);
  const events = useApi<SecurityEvent[]>(`/api/v1/domains/${domain.id}/security/events?limit=${PAGE_SIZE}&offset=${offset}`);
  const series = summary.data?.series ?? [];
  const times = useMemo(() => series.map((point) => point.bucket_start), [series]);
  const counts = useMemo(() => [{ label: 'events', values: series.map((point) => point.total), color: '#a40e26' }], [series]);
  const span = useMemo(() => lastDay(), [summary.data]);
  return (
    <div>
      <h2>Security, last 24 hours</h2>
      <Failure failure={summary.failure ?? events.failure} />
      <div class="charts">
        <TimeChart title="Security events" times={times} series={counts} span={span} />
        <Bars title="Actions" items={Object.entries(summary.data?.by_action ?? {}).map(([label, value]) => ({ label, value }))} />
        <Bars title="Top countries" items={(summary.data?.top_countries ?? []).map((row) => ({ label: row.country ?? 'unknown', value: row.count }))} />
      </div>
      <h3>Events</h3>
      {events.data && events.data.length === 0 ? <Empty>No security events: the edges blocked, challenged or logged nothing for this domain.</Empty> : null}
      {events.data?.length ? (
        <DataTable
          label={`Security events of ${domain.domain}`}
          columns={['When', 'Kind', 'Action', { label: 'Request', wrap: true }, 'Country']}
          rows={events.data}
          rowKey={(event) => event.id}
          cells={(event) => [<When at={event.occurred_at} />, event.kind, event.action, `${event.method ?? ''} ${event.path ?? ''}`, event.client_country ?? '—']}
        />
      ) : null}
      <Pager offset={offset} count={events.data?.length ?? 0} onOffset={setOffset} />
    </div>
  );
}

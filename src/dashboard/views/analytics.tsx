import { useMemo } from 'preact/hooks';
import { Bars, bytes, lastDay, TimeChart } from '../chart.js';
import { Failure, Loading } from '../components.js';
import { useApi } from '../use-api.js';
import type { Domain } from './domains.js';

type Point = { bucket_start: number; requests: number; bytes: number; cached_requests: number; status_2xx: number; status_3xx: number; status_4xx: number; status_5xx: number };
type Summary = { totals: Omit<Point, 'bucket_start'>; series: Point[]; top_countries: { country: string; requests: number }[] };
type CachePoint = { bucket_start: number; hit_ratio: number | null };
type Cache = { hit_ratio: number | null; series: CachePoint[] };

const percent = (value: number) => `${Math.round(value * 100)}%`;
const RATIO: [number, number] = [0, 1];

/** Requests, bandwidth and cache hit ratio over the last day by hour, the status-code mix and the top countries. */
export function AnalyticsTab({ domain }: { domain: Domain }) {
  const summary = useApi<Summary>(`/api/v1/domains/${domain.id}/analytics/summary?bucket=hour`);
  const cache = useApi<Cache>(`/api/v1/domains/${domain.id}/analytics/cache?bucket=hour`);
  const series = summary.data?.series ?? [];
  const times = useMemo(() => series.map((point) => point.bucket_start), [series]);
  const requests = useMemo(() => [{ label: 'requests', values: series.map((point) => point.requests), color: '#0b57d0' }, { label: 'from cache', values: series.map((point) => point.cached_requests), color: '#116329' }], [series]);
  const bandwidth = useMemo(() => [{ label: 'bytes', values: series.map((point) => point.bytes), color: '#5a32a3' }], [series]);
  const cacheTimes = useMemo(() => (cache.data?.series ?? []).map((point) => point.bucket_start), [cache.data]);
  const hits = useMemo(() => [{ label: 'hit ratio', values: (cache.data?.series ?? []).map((point) => point.hit_ratio), color: '#116329' }], [cache.data]);
  const totals = summary.data?.totals;
  const span = useMemo(() => lastDay(), [summary.data, cache.data]);
  return (
    <div>
      <h2>Analytics, last 24 hours</h2>
      <Failure failure={summary.failure ?? cache.failure} />
      <Loading when={summary.loading && !summary.data} />
      {totals ? (
        <p>
          {totals.requests} requests, {bytes(totals.bytes)}, cache hit ratio {cache.data?.hit_ratio === null || cache.data === undefined ? '—' : percent(cache.data.hit_ratio)}
        </p>
      ) : null}
      <div class="charts">
        <TimeChart title="Requests" times={times} series={requests} span={span} />
        <TimeChart title="Bandwidth" times={times} series={bandwidth} span={span} unit={bytes} />
        <TimeChart title="Cache hit ratio" times={cacheTimes} series={hits} span={span} range={RATIO} unit={percent} />
        <Bars
          title="Status codes"
          items={totals ? [
            { label: '2xx', value: totals.status_2xx },
            { label: '3xx', value: totals.status_3xx },
            { label: '4xx', value: totals.status_4xx },
            { label: '5xx', value: totals.status_5xx },
          ] : []}
        />
        <Bars title="Top countries" items={(summary.data?.top_countries ?? []).map((row) => ({ label: row.country, value: row.requests }))} />
      </div>
    </div>
  );
}

import type { Db } from '../../db/client.js';
import { Prisma } from '../../generated/prisma/client.js';
import { unixSeconds } from '../../http/timestamps.js';
import { CACHED_STATUSES } from '../../shared/cache-status.js';
import type { Bucket, Window } from './window.js';

type SeriesRow = { bucket_start: Date; requests: bigint; bytes: bigint; cached_requests: bigint; cached_bytes: bigint; status_2xx: bigint; status_3xx: bigint; status_4xx: bigint; status_5xx: bigint };
type Point = { bucket_start: number; requests: number; bytes: number; cached_requests: number; cached_bytes: number; status_2xx: number; status_3xx: number; status_4xx: number; status_5xx: number };

const METRICS = ['requests', 'bytes', 'cached_requests', 'cached_bytes', 'status_2xx', 'status_3xx', 'status_4xx', 'status_5xx'] as const;

function toPoint(row: SeriesRow): Point {
  const point = { bucket_start: unixSeconds(row.bucket_start) } as Point;
  for (const metric of METRICS) point[metric] = Number(row[metric]);
  return point;
}

function ratio(part: number, whole: number): number | null {
  return whole === 0 ? null : Math.round((part / whole) * 10000) / 10000;
}

/** The aggregate series of one bucket size over a window, for one domain or all of them. */
export async function usageSeries(db: Db, window: Window, domainId?: string): Promise<Point[]> {
  const domainFilter = domainId ? Prisma.sql`AND domain_id = ${domainId}` : Prisma.empty;
  const rows = await db.$queryRaw<SeriesRow[]>`
    SELECT bucket_start, sum(requests)::bigint AS requests, sum(bytes)::bigint AS bytes,
           sum(cached_requests)::bigint AS cached_requests, sum(cached_bytes)::bigint AS cached_bytes,
           sum(status_2xx)::bigint AS status_2xx, sum(status_3xx)::bigint AS status_3xx,
           sum(status_4xx)::bigint AS status_4xx, sum(status_5xx)::bigint AS status_5xx
    FROM usage_aggregates
    WHERE bucket = ${window.bucket}::"UsageBucket" AND bucket_start >= ${window.from} AND bucket_start < ${window.to} ${domainFilter}
    GROUP BY bucket_start ORDER BY bucket_start`;
  return rows.map(toPoint);
}

function totalsOf(points: Point[]): Omit<Point, 'bucket_start'> {
  const totals = Object.fromEntries(METRICS.map((metric) => [metric, 0])) as Omit<Point, 'bucket_start'>;
  for (const point of points) for (const metric of METRICS) totals[metric] += point[metric];
  return totals;
}

function windowOf(window: Window) {
  return { bucket: window.bucket, from: unixSeconds(window.from), to: unixSeconds(window.to) };
}

/** Cache effectiveness: hit ratio by requests and by bytes, bytes from cache vs from origin, per bucket. */
export async function cacheAnalytics(db: Db, window: Window, domainId?: string) {
  const points = await usageSeries(db, window, domainId);
  const totals = totalsOf(points);
  const shape = (point: Omit<Point, 'bucket_start'>) => ({
    requests: point.requests,
    cached_requests: point.cached_requests,
    hit_ratio: ratio(point.cached_requests, point.requests),
    bytes: point.bytes,
    cached_bytes: point.cached_bytes,
    origin_bytes: point.bytes - point.cached_bytes,
    byte_hit_ratio: ratio(point.cached_bytes, point.bytes),
  });
  return { domain_id: domainId ?? null, ...windowOf(window), ...shape(totals), series: points.map((point) => ({ bucket_start: point.bucket_start, ...shape(point) })) };
}

// Requests of one domain by the visitor's country, from its raw events (index domain_id, occurred_at;
// kept CDN_ANALYTICS_RETENTION_DAYS): the aggregates have no country. An event stands for `count` requests.
async function topCountries(db: Db, window: Window, domainId: string) {
  const rows = await db.$queryRaw<{ country: string | null; requests: bigint }[]>`
    SELECT client_country AS country, sum(count)::bigint AS requests FROM usage_events
    WHERE domain_id = ${domainId} AND occurred_at >= ${window.from} AND occurred_at < ${window.to}
    GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 10`;
  return rows.map((row) => ({ country: row.country ?? 'unknown', requests: Number(row.requests) }));
}

/** Traffic summary: totals, status classes and the series; for one domain its top countries, for all domains the busiest ones. */
export async function usageSummary(db: Db, window: Window, domainId?: string) {
  const points = await usageSeries(db, window, domainId);
  const summary = { domain_id: domainId ?? null, ...windowOf(window), totals: totalsOf(points), series: points };
  if (domainId) return { ...summary, top_countries: await topCountries(db, window, domainId) };
  const top = await db.$queryRaw<{ domain_id: string; requests: bigint; bytes: bigint }[]>`
    SELECT domain_id, sum(requests)::bigint AS requests, sum(bytes)::bigint AS bytes FROM usage_aggregates
    WHERE bucket = ${window.bucket}::"UsageBucket" AND bucket_start >= ${window.from} AND bucket_start < ${window.to}
    GROUP BY domain_id ORDER BY 2 DESC LIMIT 10`;
  return { ...summary, top_domains: top.map((row) => ({ domain_id: row.domain_id, requests: Number(row.requests), bytes: Number(row.bytes) })) };
}

/**
 * Rebuilds aggregates of the given bucket sizes (default all three) from the raw
 * usage events, for one domain or all. Only buckets from the oldest raw event on
 * are replaced, so aggregates older than the raw-event retention survive. Each bucket
 * answers the raw events it read and the requests they stand for (their `count`).
 */
export async function recalculateUsage(db: Db, buckets: Bucket[], domainId?: string) {
  const domainFilter = domainId ? Prisma.sql`AND domain_id = ${domainId}` : Prisma.empty;
  const cached = Prisma.join(CACHED_STATUSES.map((status) => Prisma.sql`${status}`));
  const results = [];
  for (const bucket of buckets) {
    const [{ since }] = await db.$queryRaw<{ since: Date | null }[]>`
      SELECT date_trunc(${bucket}, min(occurred_at)) AS since FROM usage_events WHERE domain_id IS NOT NULL ${domainFilter}`;
    if (!since) {
      results.push({ bucket, rows: 0, events: 0, requests: 0, since: null });
      continue;
    }
    await db.$executeRaw`DELETE FROM usage_aggregates WHERE bucket = ${bucket}::"UsageBucket" AND bucket_start >= ${since} ${domainFilter}`;
    const rows = await db.$executeRaw`
      INSERT INTO usage_aggregates (bucket, bucket_start, domain_id, requests, bytes, cached_requests, cached_bytes, status_2xx, status_3xx, status_4xx, status_5xx, updated_at)
      SELECT ${bucket}::"UsageBucket", date_trunc(${bucket}, occurred_at), domain_id, sum(count), sum(bytes),
             coalesce(sum(count) FILTER (WHERE lower(cache_status) IN (${cached})), 0), coalesce(sum(bytes) FILTER (WHERE lower(cache_status) IN (${cached})), 0),
             coalesce(sum(count) FILTER (WHERE status BETWEEN 200 AND 299), 0), coalesce(sum(count) FILTER (WHERE status BETWEEN 300 AND 399), 0),
             coalesce(sum(count) FILTER (WHERE status BETWEEN 400 AND 499), 0), coalesce(sum(count) FILTER (WHERE status >= 500), 0), now()
      FROM usage_events WHERE domain_id IS NOT NULL ${domainFilter}
      GROUP BY 2, 3`;
    const [{ events, requests }] = await db.$queryRaw<{ events: bigint; requests: bigint }[]>`
      SELECT count(*)::bigint AS events, coalesce(sum(count), 0)::bigint AS requests FROM usage_events WHERE domain_id IS NOT NULL ${domainFilter}`;
    results.push({ bucket, rows, events: Number(events), requests: Number(requests), since: unixSeconds(since) });
  }
  return { domain_id: domainId ?? null, buckets: results };
}

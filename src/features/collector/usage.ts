import { isIP } from 'node:net';
import type { ValidateFunction } from 'ajv';
import type pg from 'pg';
import { CACHED_STATUSES } from '../../shared/cache-status.js';
import { storedClientIp, type ClientIpPolicy } from './client-ip.js';
import { apexCandidates, domainOfHosts } from './domain-lookup.js';
import { checkItems, type Rejection } from './item-checks.js';

/** `count`: the requests the event stands for (1 when absent), `bytes` their sum. */
export type UsageEvent = { domain: string; path: string; status: number; bytes: number; count?: number; cache_status: string; timestamp: number; client_country?: string | null; client_ip?: string | null };
type Stored = UsageEvent & { domain_id: string | null };
type Queryable = Pick<pg.ClientBase, 'query'>;

const BUCKETS = [
  ['minute', 60],
  ['hour', 3600],
  ['day', 86400],
] as const;
const CACHED = new Set<string>(CACHED_STATUSES);

// Column arrays, one statement per batch (unnest), instead of a row per statement.
const INSERT_EVENTS = `
  INSERT INTO usage_events (domain_id, domain, edge_id, path, status, bytes, count, cache_status, client_country, client_ip, occurred_at)
  SELECT domain_id, domain, $1, path, status, bytes, count, cache_status, client_country, client_ip, to_timestamp(seconds)
  FROM unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::bigint[], $7::int[], $8::text[], $9::text[], $10::text[], $11::float8[])
    AS event(domain_id, domain, path, status, bytes, count, cache_status, client_country, client_ip, seconds)`;

const ADD_TO_AGGREGATES = `
  INSERT INTO usage_aggregates (bucket, bucket_start, domain_id, requests, bytes, cached_requests, cached_bytes, status_2xx, status_3xx, status_4xx, status_5xx, updated_at)
  SELECT bucket::"UsageBucket", to_timestamp(seconds), domain_id, requests, bytes, cached_requests, cached_bytes, status_2xx, status_3xx, status_4xx, status_5xx, now()
  FROM unnest($1::text[], $2::float8[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[])
    AS sums(bucket, seconds, domain_id, requests, bytes, cached_requests, cached_bytes, status_2xx, status_3xx, status_4xx, status_5xx)
  ON CONFLICT (bucket, domain_id, bucket_start) DO UPDATE SET
    requests = usage_aggregates.requests + EXCLUDED.requests, bytes = usage_aggregates.bytes + EXCLUDED.bytes,
    cached_requests = usage_aggregates.cached_requests + EXCLUDED.cached_requests, cached_bytes = usage_aggregates.cached_bytes + EXCLUDED.cached_bytes,
    status_2xx = usage_aggregates.status_2xx + EXCLUDED.status_2xx, status_3xx = usage_aggregates.status_3xx + EXCLUDED.status_3xx,
    status_4xx = usage_aggregates.status_4xx + EXCLUDED.status_4xx, status_5xx = usage_aggregates.status_5xx + EXCLUDED.status_5xx,
    updated_at = now()`;

/** The domain id of each host, read with one query. */
async function domainIds(db: Queryable, hosts: string[]): Promise<Map<string, string | null>> {
  const known = await db.query<{ id: string; domain: string }>('SELECT id, domain FROM domains WHERE domain = ANY($1::text[])', [apexCandidates(hosts)]);
  return domainOfHosts(hosts, known.rows);
}

// Sums per (bucket, domain, bucket start): requests, bytes, cached requests and bytes, then 2xx..5xx;
// an event adds its `count` requests.
// Statuses 600-999 (an origin's, passed on) count as 5xx, as RFC 9110 §15 tells clients to treat
// them and as the recalculation from usage_events does (`status >= 500`).
function aggregateSums(events: Stored[]) {
  const sums = new Map<string, { bucket: string; start: number; domain: string; values: number[] }>();
  for (const event of events) {
    if (!event.domain_id) continue;
    const cached = CACHED.has(event.cache_status.toLowerCase());
    const statusClass = Math.floor(event.status / 100);
    const count = event.count ?? 1;
    const add = [count, event.bytes, cached ? count : 0, cached ? event.bytes : 0, statusClass === 2 ? count : 0, statusClass === 3 ? count : 0, statusClass === 4 ? count : 0, statusClass >= 5 ? count : 0];
    for (const [bucket, seconds] of BUCKETS) {
      const start = Math.floor(event.timestamp / seconds) * seconds;
      const key = `${bucket} ${event.domain_id} ${start}`;
      let entry = sums.get(key);
      if (!entry) sums.set(key, (entry = { bucket, start, domain: event.domain_id, values: [0, 0, 0, 0, 0, 0, 0, 0] }));
      for (let i = 0; i < add.length; i++) entry.values[i] += add[i];
    }
  }
  return [...sums.values()];
}

async function addToAggregates(db: Queryable, events: Stored[]): Promise<void> {
  const sums = aggregateSums(events);
  if (!sums.length) return;
  const column = (i: number) => sums.map((entry) => entry.values[i]);
  await db.query(ADD_TO_AGGREGATES, [sums.map((entry) => entry.bucket), sums.map((entry) => entry.start), sums.map((entry) => entry.domain), ...[0, 1, 2, 3, 4, 5, 6, 7].map(column)]);
}

async function insertEvents(db: Queryable, events: Stored[], edgeId: string, clientIp: ClientIpPolicy): Promise<void> {
  if (!events.length) return;
  await db.query(INSERT_EVENTS, [
    edgeId,
    events.map((event) => event.domain_id),
    events.map((event) => event.domain.toLowerCase()),
    events.map((event) => event.path),
    events.map((event) => event.status),
    events.map((event) => event.bytes),
    events.map((event) => event.count ?? 1),
    events.map((event) => event.cache_status.toLowerCase()),
    events.map((event) => event.client_country ?? null),
    events.map((event) => storedClientIp(event.client_ip, clientIp)),
    events.map((event) => event.timestamp),
  ]);
}

/**
 * Ingests a batch of usage events in one transaction (the caller's): each event is
 * validated on its own (invalid ones are reported, valid ones kept); a batch whose
 * idempotency key was seen before is not counted again; client IPs are stored as
 * a keyed hash unless the policy keeps full IPs (client-ip.ts); minute/hour/day aggregates move with the events.
 */
export async function ingestUsage(db: Queryable, batch: { idempotency_key?: string; events: unknown[] }, edgeId: string, options: { validate: ValidateFunction; clientIp: ClientIpPolicy; maxSkewSeconds: number; retentionDays: number; now?: Date }) {
  if (batch.idempotency_key) {
    const inserted = await db.query("INSERT INTO ingest_keys (stream, key, edge_id, event_count) VALUES ('usage', $1, $2, $3) ON CONFLICT DO NOTHING", [batch.idempotency_key, edgeId, batch.events.length]);
    if (inserted.rowCount === 0) return { duplicate: true, accepted: 0, rejected: [] as Rejection[] };
  }
  const { valid, rejected } = checkItems<UsageEvent>(batch.events, {
    validate: options.validate,
    what: 'event',
    now: options.now ?? new Date(),
    maxSkewSeconds: options.maxSkewSeconds,
    oldest: { days: options.retentionDays, retention: 'analytics' },
    more: (event) => (event.client_ip && !isIP(event.client_ip) ? { field: 'client_ip', reason: 'client_ip must be an IP address' } : undefined),
  });
  const ids = await domainIds(db, [...new Set(valid.map((event) => event.domain))]);
  const stored: Stored[] = valid.map((event) => ({ ...event, domain_id: ids.get(event.domain) ?? null }));
  await insertEvents(db, stored, edgeId, options.clientIp);
  await addToAggregates(db, stored);
  return { duplicate: false, accepted: stored.length, unknown_domain: stored.filter((event) => !event.domain_id).length, rejected };
}

import { isIP } from 'node:net';
import type { ValidateFunction } from 'ajv';
import type { Sql } from '../../db/sql.js';
import { CACHED_STATUSES } from '../../shared/cache-status.js';
import { storedClientIp, type ClientIpPolicy } from './client-ip.js';
import { apexCandidates, domainOfHosts } from './domain-lookup.js';
import { checkItems, type Rejection } from './item-checks.js';

/** `count`: the requests the event stands for (1 when absent), `bytes` their sum. */
export type UsageEvent = { domain: string; path: string; status: number; bytes: number; count?: number; cache_status: string; timestamp: number; client_country?: string | null; client_ip?: string | null };
type Stored = UsageEvent & { domain_id: string | null };

const BUCKETS = [
  ['minute', 60],
  ['hour', 3600],
  ['day', 86400],
] as const;
const CACHED = new Set<string>(CACHED_STATUSES);

// One statement per batch, atomic without a transaction around it: the batch's idempotency key
// (`counted`: a row unless the key was seen before, `SELECT 1` for a batch without one), then, only
// when it was not, the events and their minute/hour/day sums as column arrays (unnest). Answers
// whether the batch counted. $1 the edge, $2..$11 the events' columns, $12..$22 the sums', $23 and
// $24 the key and the batch's size.
const COUNT_BATCH = (counted: string) => `
  WITH counted AS (${counted}),
  events AS (
    INSERT INTO usage_events (domain_id, domain, edge_id, path, status, bytes, count, cache_status, client_country, client_ip, occurred_at)
    SELECT domain_id, domain, $1, path, status, bytes, count, cache_status, client_country, client_ip, to_timestamp(seconds)
    FROM unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::bigint[], $7::int[], $8::text[], $9::text[], $10::text[], $11::float8[])
      AS event(domain_id, domain, path, status, bytes, count, cache_status, client_country, client_ip, seconds)
    WHERE EXISTS (SELECT 1 FROM counted)
  ),
  sums AS (
    INSERT INTO usage_aggregates (bucket, bucket_start, domain_id, requests, bytes, cached_requests, cached_bytes, status_2xx, status_3xx, status_4xx, status_5xx, updated_at)
    SELECT bucket::"UsageBucket", to_timestamp(seconds), domain_id, requests, bytes, cached_requests, cached_bytes, status_2xx, status_3xx, status_4xx, status_5xx, now()
    FROM unnest($12::text[], $13::float8[], $14::text[], $15::bigint[], $16::bigint[], $17::bigint[], $18::bigint[], $19::bigint[], $20::bigint[], $21::bigint[], $22::bigint[])
      AS sums(bucket, seconds, domain_id, requests, bytes, cached_requests, cached_bytes, status_2xx, status_3xx, status_4xx, status_5xx)
    WHERE EXISTS (SELECT 1 FROM counted)
    ON CONFLICT (bucket, domain_id, bucket_start) DO UPDATE SET
      requests = usage_aggregates.requests + EXCLUDED.requests, bytes = usage_aggregates.bytes + EXCLUDED.bytes,
      cached_requests = usage_aggregates.cached_requests + EXCLUDED.cached_requests, cached_bytes = usage_aggregates.cached_bytes + EXCLUDED.cached_bytes,
      status_2xx = usage_aggregates.status_2xx + EXCLUDED.status_2xx, status_3xx = usage_aggregates.status_3xx + EXCLUDED.status_3xx,
      status_4xx = usage_aggregates.status_4xx + EXCLUDED.status_4xx, status_5xx = usage_aggregates.status_5xx + EXCLUDED.status_5xx,
      updated_at = now()
  )
  SELECT count(*)::int AS counted FROM counted`;
const COUNT_KEYED_BATCH = COUNT_BATCH(`INSERT INTO ingest_keys (stream, key, edge_id, event_count) VALUES ('usage', $23, $1, $24) ON CONFLICT DO NOTHING RETURNING 1`);
const COUNT_UNKEYED_BATCH = COUNT_BATCH('SELECT 1');

/** The domain id of each host, read with one query. */
async function domainIds(db: Sql, hosts: string[]): Promise<Map<string, string | null>> {
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

// The sums' columns, in COUNT_BATCH's order.
function sumColumns(events: Stored[]): unknown[][] {
  const sums = aggregateSums(events);
  const column = (i: number) => sums.map((entry) => entry.values[i]);
  return [sums.map((entry) => entry.bucket), sums.map((entry) => entry.start), sums.map((entry) => entry.domain), ...[0, 1, 2, 3, 4, 5, 6, 7].map(column)];
}

// The events' columns, in COUNT_BATCH's order.
function eventColumns(events: Stored[], clientIp: ClientIpPolicy): unknown[][] {
  return [
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
  ];
}

/**
 * Ingests a batch of usage events with one read (the domains) and one statement (COUNT_BATCH): each
 * event is validated on its own (invalid ones are reported, valid ones kept); a batch whose
 * idempotency key was seen before is not counted again; client IPs are stored as a keyed hash
 * unless the policy keeps full IPs (client-ip.ts); minute/hour/day aggregates move with the events.
 */
export async function ingestUsage(db: Sql, batch: { idempotency_key?: string; events: unknown[] }, edgeId: string, options: { validate: ValidateFunction; clientIp: ClientIpPolicy; maxSkewSeconds: number; retentionDays: number; now?: Date }) {
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
  const columns = [edgeId, ...eventColumns(stored, options.clientIp), ...sumColumns(stored)];
  const key = batch.idempotency_key;
  const { rows } = key ? await db.query<{ counted: number }>(COUNT_KEYED_BATCH, [...columns, key, batch.events.length]) : await db.query<{ counted: number }>(COUNT_UNKEYED_BATCH, columns);
  if (rows[0].counted === 0) return { duplicate: true, accepted: 0, rejected: [] as Rejection[] };
  return { duplicate: false, accepted: stored.length, unknown_domain: stored.filter((event) => !event.domain_id).length, rejected };
}

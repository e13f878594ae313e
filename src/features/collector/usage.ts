import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import type { ValidateFunction } from 'ajv';
import type { Db } from '../../db/client.js';
import { Prisma } from '../../generated/prisma/client.js';
import { schemaProblem } from '../../http/validation.js';
import { CACHED_STATUSES } from '../../shared/cache-status.js';

export type UsageEvent = { domain: string; path: string; status: number; bytes: number; cache_status: string; timestamp: number; client_country?: string | null; client_ip?: string | null };
export type Rejection = { index: number; field?: string; reason: string };
type Stored = UsageEvent & { domain_id: string | null; occurred_at: Date };

const FUTURE_TOLERANCE_SECONDS = 300;
const BUCKETS = [
  ['minute', 60],
  ['hour', 3600],
  ['day', 86400],
] as const;
const CACHED = new Set<string>(CACHED_STATUSES);

function checkEvent(validate: ValidateFunction, event: unknown, index: number, now: number, oldest: number): Rejection | undefined {
  const problem = schemaProblem(validate, event, 'event');
  if (problem) return { index, field: problem.field, reason: problem.detail };
  const usage = event as UsageEvent;
  if (usage.client_ip && !isIP(usage.client_ip)) return { index, field: 'client_ip', reason: 'client_ip must be an IP address' };
  if (usage.timestamp > now + FUTURE_TOLERANCE_SECONDS) return { index, field: 'timestamp', reason: 'timestamp is in the future' };
  if (usage.timestamp < oldest) return { index, field: 'timestamp', reason: 'timestamp is older than the analytics retention' };
  return undefined;
}

/** The domain of each host: the longest known apex that is the host or one of its parents. */
export async function domainIds(db: Db, hosts: string[]): Promise<Map<string, string | null>> {
  const candidates = new Set<string>();
  for (const host of hosts) {
    const labels = host.toLowerCase().replace(/\.$/, '').split('.');
    for (let i = 0; i < labels.length - 1; i++) candidates.add(labels.slice(i).join('.'));
  }
  const rows = await db.domain.findMany({ where: { domain: { in: [...candidates] } }, select: { id: true, domain: true } });
  const byApex = new Map(rows.map((row) => [row.domain, row.id]));
  return new Map(
    hosts.map((host) => {
      const labels = host.toLowerCase().replace(/\.$/, '').split('.');
      for (let i = 0; i < labels.length - 1; i++) {
        const id = byApex.get(labels.slice(i).join('.'));
        if (id) return [host, id];
      }
      return [host, null];
    }),
  );
}

async function addToAggregates(db: Db, events: Stored[]): Promise<void> {
  const sums = new Map<string, { bucket: string; start: Date; domain: string; values: number[] }>();
  for (const event of events) {
    if (!event.domain_id) continue;
    const cached = CACHED.has(event.cache_status.toLowerCase());
    const statusClass = Math.floor(event.status / 100);
    for (const [bucket, seconds] of BUCKETS) {
      const start = new Date(Math.floor(event.timestamp / seconds) * seconds * 1000);
      const key = `${bucket} ${event.domain_id} ${start.getTime()}`;
      const entry = sums.get(key) ?? { bucket, start, domain: event.domain_id, values: [0, 0, 0, 0, 0, 0, 0, 0] };
      const add = [1, event.bytes, cached ? 1 : 0, cached ? event.bytes : 0, statusClass === 2 ? 1 : 0, statusClass === 3 ? 1 : 0, statusClass === 4 ? 1 : 0, statusClass === 5 ? 1 : 0];
      add.forEach((value, i) => (entry.values[i] += value));
      sums.set(key, entry);
    }
  }
  if (!sums.size) return;
  const rows = [...sums.values()].map((entry) => Prisma.sql`(${entry.bucket}::"UsageBucket", ${entry.start}, ${entry.domain}, ${Prisma.join(entry.values.map((value) => Prisma.sql`${value}::bigint`))}, now())`);
  await db.$executeRaw`
    INSERT INTO usage_aggregates (bucket, bucket_start, domain_id, requests, bytes, cached_requests, cached_bytes, status_2xx, status_3xx, status_4xx, status_5xx, updated_at)
    VALUES ${Prisma.join(rows)}
    ON CONFLICT (bucket, domain_id, bucket_start) DO UPDATE SET
      requests = usage_aggregates.requests + EXCLUDED.requests, bytes = usage_aggregates.bytes + EXCLUDED.bytes,
      cached_requests = usage_aggregates.cached_requests + EXCLUDED.cached_requests, cached_bytes = usage_aggregates.cached_bytes + EXCLUDED.cached_bytes,
      status_2xx = usage_aggregates.status_2xx + EXCLUDED.status_2xx, status_3xx = usage_aggregates.status_3xx + EXCLUDED.status_3xx,
      status_4xx = usage_aggregates.status_4xx + EXCLUDED.status_4xx, status_5xx = usage_aggregates.status_5xx + EXCLUDED.status_5xx,
      updated_at = now()`;
}

/**
 * Ingests a batch of usage events in one transaction (the caller's): each event is
 * validated on its own (invalid ones are reported, valid ones kept); a batch whose
 * idempotency key was seen before is not counted again; client IPs are stored as
 * SHA-256 unless `storeFullIp`; minute/hour/day aggregates move with the events.
 */
export async function ingestUsage(db: Db, batch: { idempotency_key?: string; events: unknown[] }, edgeId: string, options: { validate: ValidateFunction; storeFullIp: boolean; retentionDays: number; now?: Date }) {
  const now = options.now ?? new Date();
  if (batch.idempotency_key) {
    const inserted = await db.ingestKey.createMany({ data: [{ stream: 'usage', key: batch.idempotency_key, edge_id: edgeId, event_count: batch.events.length }], skipDuplicates: true });
    if (inserted.count === 0) return { duplicate: true, accepted: 0, rejected: [] as Rejection[] };
  }
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const oldest = nowSeconds - options.retentionDays * 86400;
  const rejected: Rejection[] = [];
  const valid: UsageEvent[] = [];
  batch.events.forEach((event, index) => {
    const rejection = checkEvent(options.validate, event, index, nowSeconds, oldest);
    if (rejection) rejected.push(rejection);
    else valid.push(event as UsageEvent);
  });
  const ids = await domainIds(db, [...new Set(valid.map((event) => event.domain))]);
  const stored: Stored[] = valid.map((event) => ({ ...event, domain_id: ids.get(event.domain) ?? null, occurred_at: new Date(event.timestamp * 1000) }));
  await db.usageEvent.createMany({
    data: stored.map((event) => ({
      domain_id: event.domain_id,
      domain: event.domain.toLowerCase(),
      edge_id: edgeId,
      path: event.path,
      status: event.status,
      bytes: BigInt(event.bytes),
      cache_status: event.cache_status.toLowerCase(),
      client_country: event.client_country ?? null,
      client_ip: event.client_ip ? (options.storeFullIp ? event.client_ip : createHash('sha256').update(event.client_ip).digest('hex')) : null,
      occurred_at: event.occurred_at,
    })),
  });
  await addToAggregates(db, stored);
  return { duplicate: false, accepted: stored.length, unknown_domain: stored.filter((event) => !event.domain_id).length, rejected };
}

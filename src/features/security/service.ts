import type { Db } from '../../db/client.js';
import { Prisma } from '../../generated/prisma/client.js';
import type { Paging } from '../../http/paging.js';
import { unixSeconds } from '../../http/timestamps.js';
import type { Window } from '../analytics/window.js';
import { assertDomainExists } from '../domains/service.js';

type EventRow = Awaited<ReturnType<Db['securityEvent']['findFirstOrThrow']>>;

function serializeEvent(row: EventRow) {
  return { ...row, id: String(row.id), occurred_at: unixSeconds(row.occurred_at), received_at: unixSeconds(row.received_at) };
}

/** Security events newest first, optionally for one domain (which must exist). */
export async function listSecurityEvents(db: Db, paging: Paging, domainId?: string) {
  if (domainId) await assertDomainExists(db, domainId);
  const rows = await db.securityEvent.findMany({
    where: domainId ? { domain_id: domainId } : {},
    orderBy: [{ occurred_at: 'desc' }, { id: 'desc' }],
    skip: paging.offset,
    take: paging.limit,
  });
  return rows.map(serializeEvent);
}

async function countsBy(db: Db, column: 'kind' | 'action' | 'client_country' | 'path' | 'rule_id', window: Window, filter: Prisma.Sql, limit: number) {
  const rows = await db.$queryRaw<{ value: string | null; count: bigint }[]>`
    SELECT ${Prisma.raw(`"${column}"`)} AS value, count(*)::bigint AS count FROM security_events
    WHERE occurred_at >= ${window.from} AND occurred_at < ${window.to} ${filter}
    GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ${limit}`;
  return rows.map((row) => ({ value: row.value, count: Number(row.count) }));
}

// Events per bucket of the window (the window's bucket size, in UTC like the usage aggregates), with their actions: for a chart over time.
async function eventSeries(db: Db, window: Window, filter: Prisma.Sql) {
  const rows = await db.$queryRaw<{ bucket_start: Date; action: string; count: bigint }[]>`
    SELECT date_trunc(${window.bucket}, occurred_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS bucket_start, action, count(*)::bigint AS count FROM security_events
    WHERE occurred_at >= ${window.from} AND occurred_at < ${window.to} ${filter}
    GROUP BY 1, 2 ORDER BY 1, 2`;
  const buckets = new Map<number, Record<string, number>>();
  for (const row of rows) {
    const start = unixSeconds(row.bucket_start)!;
    const counts = buckets.get(start) ?? {};
    counts[row.action] = Number(row.count);
    buckets.set(start, counts);
  }
  return [...buckets].map(([bucket_start, by_action]) => ({ bucket_start, total: Object.values(by_action).reduce((sum, count) => sum + count, 0), by_action }));
}

/** What the edges blocked, challenged or logged over a window: totals by kind and action, and the top countries, paths and rules. */
export async function securitySummary(db: Db, window: Window, domainId?: string) {
  if (domainId) await assertDomainExists(db, domainId);
  const filter = domainId ? Prisma.sql`AND domain_id = ${domainId}` : Prisma.empty;
  const [series, byKind, byAction, countries, paths, rules] = await Promise.all([
    eventSeries(db, window, filter),
    countsBy(db, 'kind', window, filter, 50),
    countsBy(db, 'action', window, filter, 50),
    countsBy(db, 'client_country', window, filter, 10),
    countsBy(db, 'path', window, filter, 10),
    countsBy(db, 'rule_id', window, filter, 10),
  ]);
  const asMap = (rows: { value: string | null; count: number }[]) => Object.fromEntries(rows.map((row) => [row.value ?? 'unknown', row.count]));
  return {
    domain_id: domainId ?? null,
    from: unixSeconds(window.from),
    to: unixSeconds(window.to),
    total: byKind.reduce((sum, row) => sum + row.count, 0),
    by_kind: asMap(byKind),
    by_action: asMap(byAction),
    top_countries: countries.map((row) => ({ country: row.value, count: row.count })),
    top_paths: paths.map((row) => ({ path: row.value, count: row.count })),
    top_rules: rules.filter((row) => row.value).map((row) => ({ rule_id: row.value, count: row.count })),
    series,
  };
}

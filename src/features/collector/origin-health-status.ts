import type pg from 'pg';
import type { Sql } from '../../db/sql.js';
import { inTransaction } from '../../db/transaction.js';
import { markConfigDirtyOn } from '../../publish/dirty.js';

export type OriginHealth = 'unknown' | 'healthy' | 'degraded' | 'unhealthy';
export type HealthChange = { origin_id: string; health_status: OriginHealth };

// How far back the observations that make an origin's health reach.
const HEALTH_WINDOW_MS = 2 * 60 * 1000;
const MIN_OBSERVATIONS = 3;
const UNHEALTHY_FAILURE_RATIO = 0.5;
const DEGRADED_FAILURE_RATIO = 0.1;

/**
 * The health of an origin from the observations of its window, all edges together:
 * unhealthy when half or more failed, degraded from 10%, healthy below; unknown
 * with fewer than three observations.
 */
export function healthFromCounts(observations: number, failures: number): OriginHealth {
  if (observations < MIN_OBSERVATIONS) return 'unknown';
  const ratio = failures / observations;
  if (ratio >= UNHEALTHY_FAILURE_RATIO) return 'unhealthy';
  return ratio >= DEGRADED_FAILURE_RATIO ? 'degraded' : 'healthy';
}

/** healthFromCounts over a list of outcomes (true = success). */
export function healthOf(outcomes: boolean[]): OriginHealth {
  return healthFromCounts(outcomes.length, outcomes.filter((success) => !success).length);
}

type WindowRow = { id: string; health_status: string; observations: string; failures: string };

// Counts per origin in the window ending at `now` (the (origin_id, observed_at) index serves the join):
// of the given origins, or of every origin whose health is known.
const WINDOW_COUNTS = (which: string) => `
  SELECT o.id, o.health_status, count(h.id) AS observations, count(h.id) FILTER (WHERE NOT h.success) AS failures
  FROM origins o LEFT JOIN origin_health_observations h ON h.origin_id = o.id AND h.observed_at >= $1
  WHERE ${which} GROUP BY o.id ORDER BY o.id`;
const COUNTS_OF_ORIGINS = WINDOW_COUNTS('o.id = ANY($2::text[])');
const COUNTS_OF_KNOWN = WINDOW_COUNTS(`o.health_status <> 'unknown'`);

async function windowCounts(sql: Sql, ids: string[] | 'known', now: Date): Promise<WindowRow[]> {
  const since = new Date(now.getTime() - HEALTH_WINDOW_MS);
  const { rows } = ids === 'known' ? await sql.query<WindowRow>(COUNTS_OF_KNOWN, [since]) : await sql.query<WindowRow>(COUNTS_OF_ORIGINS, [since, ids]);
  return rows;
}

// The origins whose stored health differs from what their window says now.
function staleHealth(rows: WindowRow[]): HealthChange[] {
  return rows
    .map((row) => ({ row, health: healthFromCounts(Number(row.observations), Number(row.failures)) }))
    .filter(({ row, health }) => health !== row.health_status)
    .map(({ row, health }) => ({ origin_id: row.id, health_status: health }));
}

/** The rows lockOrigins takes, in id order, with `FOR UPDATE` (a statement may build on it). */
export const LOCK_ORIGINS = 'SELECT id, domain_id FROM origins WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE';

/**
 * Locks origin rows in id order until the caller's transaction ends: the ingest and
 * the scheduled refresh both take it before they recompute, so a refresh can never
 * overwrite the health that observations committed a moment earlier. Returns the
 * origins that exist, with their domain.
 */
export async function lockOrigins(sql: Sql, ids: string[]): Promise<{ id: string; domain_id: string }[]> {
  return (await sql.query<{ id: string; domain_id: string }>(LOCK_ORIGINS, [[...new Set(ids)].sort()])).rows;
}

const STORE_HEALTH = `
  UPDATE origins o SET health_status = c.health_status, health_changed_at = $1
  FROM unnest($2::text[], $3::text[]) AS c(id, health_status) WHERE o.id = c.id`;

/**
 * Recomputes the health of origins the caller has locked (lockOrigins) from their
 * window ending at `now`, stores what changed and, when anything did, marks the
 * config dirty in the caller's transaction so the next snapshot carries it.
 */
export async function applyOriginHealth(sql: Sql, ids: string[], now: Date): Promise<HealthChange[]> {
  if (!ids.length) return [];
  const changed = staleHealth(await windowCounts(sql, ids, now));
  if (!changed.length) return [];
  await sql.query(STORE_HEALTH, [now, changed.map((change) => change.origin_id), changed.map((change) => change.health_status)]);
  await markConfigDirtyOn(sql, 'origin.health', now);
  return changed;
}

/**
 * The scheduled side of origin health: an origin the edges route around receives no
 * new observations, so without this it would stay unhealthy for ever. Finds the
 * origins whose stored health no longer matches their window (an emptied window
 * decays to unknown) with one read, then fixes only those in one short transaction.
 * Safe on several cores at once: the second finds nothing left to change.
 */
export async function refreshOriginHealth(pool: pg.Pool, now = new Date()): Promise<HealthChange[]> {
  const stale = staleHealth(await windowCounts(pool, 'known', now));
  if (!stale.length) return [];
  return inTransaction(pool, async (client) => {
    const locked = await lockOrigins(client, stale.map((change) => change.origin_id));
    return applyOriginHealth(client, locked.map((row) => row.id), now);
  });
}

import type { ValidateFunction } from 'ajv';
import type { Sql } from '../../db/sql.js';
import { checkItems } from './item-checks.js';
import { applyOriginHealth, LOCK_ORIGINS } from './origin-health-status.js';

export type Observation = { origin_id: string; source: string; success: boolean; failure_kind?: string | null; http_status?: number | null; latency_ms?: number | null; jitter_ms?: number | null; detail?: string | null; timestamp: number };

/**
 * What an observation must satisfy besides its schema: a timestamp no further ahead
 * of the core clock than a signed request may be (CDN_EDGE_SIGNATURE_MAX_SKEW_SECONDS)
 * and no older than the analytics retention (it would be pruned at once).
 */
export type ObservationBounds = { validate: ValidateFunction; maxSkewSeconds: number; retentionDays: number; now?: Date };

// Locks the batch's origins (LOCK_ORIGINS) and stores the observations of those that exist, in one
// statement; answers the locked origins.
const LOCK_AND_STORE = `
  WITH locked AS (${LOCK_ORIGINS}),
  stored AS (
    INSERT INTO origin_health_observations (origin_id, domain_id, edge_id, source, success, failure_kind, http_status, latency_ms, jitter_ms, detail, observed_at)
    SELECT item.origin_id, locked.domain_id, $2, item.source, item.success, item.failure_kind, item.http_status, item.latency_ms, item.jitter_ms, item.detail, to_timestamp(item.seconds)
    FROM unnest($3::text[], $4::text[], $5::boolean[], $6::text[], $7::int[], $8::int[], $9::int[], $10::text[], $11::float8[])
      AS item(origin_id, source, success, failure_kind, http_status, latency_ms, jitter_ms, detail, seconds)
    JOIN locked ON locked.id = item.origin_id
  )
  SELECT id FROM locked`;

/**
 * Stores an edge's observations in the caller's transaction and recomputes the
 * health of the origins they concern. Each observation is checked on its own:
 * invalid ones are listed in `rejected` ({index, field, reason}) and skipped,
 * those of unknown origins are counted in `unknown_origins`. A changed
 * health_status marks the config dirty, so the next snapshot routes around an
 * unhealthy origin.
 */
export async function ingestOriginHealth(sql: Sql, items: unknown[], edgeId: string, bounds: ObservationBounds) {
  const now = bounds.now ?? new Date();
  const { valid, rejected } = checkItems<Observation>(items, { validate: bounds.validate, what: 'observation', now, maxSkewSeconds: bounds.maxSkewSeconds, oldest: { days: bounds.retentionDays, retention: 'analytics' } });
  if (!valid.length) return { accepted: 0, unknown_origins: 0, rejected, changed: [] };
  const column = <K extends keyof Observation>(key: K) => valid.map((item) => item[key] ?? null);
  const { rows } = await sql.query<{ id: string }>(LOCK_AND_STORE, [
    [...new Set(column('origin_id'))].sort(),
    edgeId,
    column('origin_id'),
    column('source'),
    column('success'),
    column('failure_kind'),
    column('http_status'),
    column('latency_ms'),
    column('jitter_ms'),
    column('detail'),
    column('timestamp'),
  ]);
  const known = new Set(rows.map((row) => row.id));
  const accepted = valid.filter((item) => known.has(item.origin_id)).length;
  const changed = await applyOriginHealth(sql, [...known], now);
  return { accepted, unknown_origins: valid.length - accepted, rejected, changed };
}

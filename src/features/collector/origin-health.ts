import type { ValidateFunction } from 'ajv';
import type { Db } from '../../db/client.js';
import { checkItems } from './item-checks.js';
import { applyOriginHealth, lockOrigins } from './origin-health-status.js';

export type Observation = { origin_id: string; source: string; success: boolean; failure_kind?: string | null; http_status?: number | null; latency_ms?: number | null; jitter_ms?: number | null; detail?: string | null; timestamp: number };

/**
 * What an observation must satisfy besides its schema: a timestamp no further ahead
 * of the core clock than a signed request may be (CDN_EDGE_SIGNATURE_MAX_SKEW_SECONDS)
 * and no older than the analytics retention (it would be pruned at once).
 */
export type ObservationBounds = { validate: ValidateFunction; maxSkewSeconds: number; retentionDays: number; now?: Date };

/**
 * Stores an edge's observations in the caller's transaction and recomputes the
 * health of the origins they concern. Each observation is checked on its own:
 * invalid ones are listed in `rejected` ({index, field, reason}) and skipped,
 * those of unknown origins are counted in `unknown_origins`. A changed
 * health_status marks the config dirty, so the next snapshot routes around an
 * unhealthy origin.
 */
export async function ingestOriginHealth(db: Db, items: unknown[], edgeId: string, bounds: ObservationBounds) {
  const now = bounds.now ?? new Date();
  const { valid, rejected } = checkItems<Observation>(items, { validate: bounds.validate, what: 'observation', now, maxSkewSeconds: bounds.maxSkewSeconds, oldest: { days: bounds.retentionDays, retention: 'analytics' } });
  const origins = await lockOrigins(db, valid.map((item) => item.origin_id));
  const domainOf = new Map(origins.map((origin) => [origin.id, origin.domain_id]));
  const known = valid.filter((item) => domainOf.has(item.origin_id));
  await db.originHealthObservation.createMany({
    data: known.map((item) => ({
      origin_id: item.origin_id,
      domain_id: domainOf.get(item.origin_id)!,
      edge_id: edgeId,
      source: item.source,
      success: item.success,
      failure_kind: item.failure_kind ?? null,
      http_status: item.http_status ?? null,
      latency_ms: item.latency_ms ?? null,
      jitter_ms: item.jitter_ms ?? null,
      detail: item.detail ?? null,
      observed_at: new Date(item.timestamp * 1000),
    })),
  });
  const changed = await applyOriginHealth(db, [...domainOf.keys()], now);
  return { accepted: known.length, unknown_origins: valid.length - known.length, rejected, changed };
}

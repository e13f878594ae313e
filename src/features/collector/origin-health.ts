import type { Db } from '../../db/client.js';
import { markConfigDirty } from '../../publish/dirty.js';

export type Observation = { origin_id: string; source: string; success: boolean; failure_kind?: string | null; http_status?: number | null; latency_ms?: number | null; jitter_ms?: number | null; detail?: string | null; timestamp: number };

const WINDOW_MS = 2 * 60 * 1000;
const MIN_OBSERVATIONS = 3;
const UNHEALTHY_FAILURE_RATIO = 0.5;
const DEGRADED_FAILURE_RATIO = 0.1;

/**
 * The health of an origin from the observations of the last two minutes, all edges
 * together: unhealthy when half or more failed, degraded from 10%, healthy below;
 * unknown with fewer than three observations.
 */
export function healthOf(outcomes: boolean[]): 'unknown' | 'healthy' | 'degraded' | 'unhealthy' {
  if (outcomes.length < MIN_OBSERVATIONS) return 'unknown';
  const failures = outcomes.filter((success) => !success).length / outcomes.length;
  if (failures >= UNHEALTHY_FAILURE_RATIO) return 'unhealthy';
  return failures >= DEGRADED_FAILURE_RATIO ? 'degraded' : 'healthy';
}

/**
 * Stores an edge's observations (unknown origins are ignored) and recomputes the
 * health of the origins they concern. A changed health_status marks the config
 * dirty, so the next snapshot routes around an unhealthy origin.
 */
export async function ingestOriginHealth(db: Db, observations: Observation[], edgeId: string, now = new Date()) {
  const origins = await db.origin.findMany({ where: { id: { in: [...new Set(observations.map((item) => item.origin_id))] } }, select: { id: true, domain_id: true, health_status: true } });
  const byId = new Map(origins.map((origin) => [origin.id, origin]));
  const known = observations.filter((item) => byId.has(item.origin_id));
  await db.originHealthObservation.createMany({
    data: known.map((item) => ({
      origin_id: item.origin_id,
      domain_id: byId.get(item.origin_id)!.domain_id,
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
  const changed: { origin_id: string; health_status: string }[] = [];
  for (const origin of origins) {
    const recent = await db.originHealthObservation.findMany({ where: { origin_id: origin.id, observed_at: { gte: new Date(now.getTime() - WINDOW_MS) } }, select: { success: true } });
    const status = healthOf(recent.map((row) => row.success));
    if (status === origin.health_status) continue;
    await db.origin.update({ where: { id: origin.id }, data: { health_status: status, health_changed_at: now } });
    changed.push({ origin_id: origin.id, health_status: status });
  }
  if (changed.length) await markConfigDirty(db, 'origin.health');
  return { accepted: known.length, unknown_origins: observations.length - known.length, changed };
}

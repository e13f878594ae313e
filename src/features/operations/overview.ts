import type { Config } from '../../config/load.js';
import { retentionStatus } from '../../core/retention-state.js';
import type { Db } from '../../db/client.js';
import { unixSeconds } from '../../http/timestamps.js';
import { dnsHealth } from '../../publish/dns/dns-health.js';

/** The operator's front page: domains by status, edge pool health, publish state, DNS sync backlog, retention and recent errors. */
export async function overview(db: Db, config: Config, now = new Date()) {
  const fresh = new Date(now.getTime() - config.edgeHeartbeatFreshSeconds * 1000);
  const [statusCounts, edgesTotal, edgesHealthy, publish, pendingSyncs, failedSyncs, retention, dns] = await Promise.all([
    db.domain.groupBy({ by: ['status'], _count: { _all: true } }),
    db.edgeNode.count(),
    db.edgeNode.count({ where: { enabled: true, health_status: 'healthy', last_heartbeat_at: { gte: fresh } } }),
    db.publishState.findUnique({ where: { id: 1 } }),
    db.$queryRaw<{ count: bigint }[]>`SELECT count(*)::bigint AS count FROM dns_zone_states WHERE published_hash IS DISTINCT FROM desired_hash`,
    db.dnsSyncEvent.findMany({ where: { success: false }, orderBy: { created_at: 'desc' }, take: 10 }),
    retentionStatus(db, config),
    dnsHealth(db, config),
  ]);
  const domains = { total: 0, pending_nameserver: 0, active: 0, disabled: 0 };
  for (const row of statusCounts) {
    domains[row.status] = row._count._all;
    domains.total += row._count._all;
  }
  const recentErrors = failedSyncs.map((event) => ({ source: 'dns_sync', zone: event.zone_name, error: event.error, at: unixSeconds(event.created_at) }));
  if (retention.last_run?.error) recentErrors.unshift({ source: 'retention', zone: '', error: retention.last_run.error, at: retention.last_run.finished_at ?? retention.last_run.started_at });
  if (publish?.last_error) recentErrors.unshift({ source: 'publish', zone: '', error: publish.last_error, at: unixSeconds(publish.last_error_at)! });
  return {
    domains,
    edges: { total: edgesTotal, healthy: edgesHealthy },
    publish: {
      active_version: publish?.active_version ?? null,
      last_publish_at: unixSeconds(publish?.last_publish_at),
      dirty: publish ? publish.change_seq > publish.published_seq : false,
      dirty_since: unixSeconds(publish?.dirty_since),
      last_error: publish?.last_error ?? null,
    },
    dns: { ...dns, pending_syncs: Number(pendingSyncs[0].count) },
    retention,
    recent_errors: recentErrors,
  };
}

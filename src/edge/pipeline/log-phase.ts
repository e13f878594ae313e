import type { RequestMetrics } from '../metrics/worker-metrics.js';
import type { SecurityEvent, UsageEvent } from '../worker/messages.js';
import { CACHE_STATUSES, cacheStatusIndex, type RequestContext } from './context.js';

const MAX_PATH = 4096;
/** How usage events name each X-Cache value, by cacheStatusIndex. */
const USAGE_CACHE_STATUS: readonly string[] = CACHE_STATUSES.map((status) => status.toLowerCase());
const MAX_USER_AGENT = 1024;

/** Where the log phase puts what it reports (the worker's bounded telemetry buffers). */
export type TelemetrySink = {
  /** Counts the request for its config version (canary rollout, docs/rollout.md); never dropped. */
  countVersion(version: number, status: number, originFailed: boolean): void;
  /** Counts the request's usage (aggregated with alike requests); never dropped. */
  usage(event: UsageEvent): void;
  security(event: SecurityEvent): void;
};

function boundedPath(path: string): string {
  return path.length > MAX_PATH ? path.slice(0, MAX_PATH) : path;
}

/**
 * The log/telemetry phase: runs once per request when the client connection is
 * done (the runner guarantees it). Every request is counted in the edge's metrics;
 * requests for hosts no domain serves are not usage of any domain and are not
 * reported. An Upgrade is reported once its handshake is answered; the bytes of a
 * tunnel are not counted.
 */
export function createLogPhase(sink: TelemetrySink, metrics?: RequestMetrics): (ctx: RequestContext) => void {
  return (ctx) => {
    const status = ctx.tunnelStatus ?? (ctx.res.headersSent ? ctx.res.statusCode : 499);
    if (metrics) {
      metrics.request(status, ctx.cacheStatus, ctx.domain?.apex);
      if (ctx.findings.length > 0) metrics.findings(ctx.findings);
    }
    if (!ctx.domain) return;
    const timestamp = ctx.receivedSecond;
    const path = boundedPath(ctx.path);
    sink.countVersion(ctx.config.version, status, ctx.originFailed);
    sink.usage({ domain: ctx.host, path, status, bytes: ctx.bytesSent, cache_status: USAGE_CACHE_STATUS[cacheStatusIndex(ctx.cacheStatus)], timestamp, client_country: ctx.country ?? null, client_ip: ctx.clientIp });
    for (const finding of ctx.findings) {
      const userAgent = ctx.headers['user-agent'];
      sink.security({
        domain: ctx.host,
        kind: finding.kind,
        action: finding.action,
        rule_id: finding.rule_id,
        method: ctx.method.slice(0, 16),
        path,
        client_country: ctx.country ?? null,
        client_ip: ctx.clientIp,
        user_agent: userAgent ? userAgent.slice(0, MAX_USER_AGENT) : null,
        ...(finding.details ? { details: finding.details } : {}),
        timestamp,
      });
    }
  };
}

// One scrape of the whole edge (docs/metrics.md, "Edge"): the primary's own metrics (agent, disk
// tier, workers) and every worker's, added up with prom-client's AggregatorRegistry.aggregate:
// counters and histograms are summed, gauges too unless their metric names another aggregator.
import { AggregatorRegistry, Gauge, Registry, type PrometheusContentType } from 'prom-client';
import { gaugeReadWhenScraped } from '../../metrics/scraped-gauge.js';
import type { DiskCacheIndex } from '../cache/disk-index.js';
import type { AgentStatusView } from '../worker/messages.js';
import { CACHE_METRICS } from './cache-metric-names.js';
import { registerCounterFrom } from './scraped-counter.js';

const STREAMS = ['usage', 'security', 'origin_health'] as const;
/** Cache statuses a lookup in the cache ends with, and those of them the cache answered. */
const LOOKUPS = new Set(['hit', 'stale', 'miss', 'expired']);
const ANSWERED_FROM_CACHE = new Set(['hit', 'stale']);

/** What the primary's metrics read when scraped. */
export type PrimarySources = { status: () => AgentStatusView; disk: DiskCacheIndex };

/** The workers' metrics for one scrape, and how many workers did not answer in time. */
export type WorkerAnswers = { metrics: object[][]; missing: number };

const numberOr = (value: unknown, fallback: number): number => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);

function registerConfigMetrics(registry: Registry, status: () => AgentStatusView): void {
  const config = () => status().config;
  gaugeReadWhenScraped(registry, { name: 'cdn_edge_config_version', help: 'Version of the snapshot the agent activated (NaN before the first).' }, (gauge) => gauge.set(numberOr(config().version, NaN)));
  gaugeReadWhenScraped(registry, { name: 'cdn_edge_config_age_seconds', help: 'Seconds since the agent activated the snapshot it serves (NaN before the first).' }, (gauge) => {
    const loadedAt = numberOr(config().loaded_at, NaN);
    gauge.set(Date.now() / 1000 - loadedAt);
  });
  gaugeReadWhenScraped(registry, { name: 'cdn_edge_config_stale_seconds', help: 'Seconds since the edge last knew it served the core\'s newest version (0 when it does; NaN before any pull worked).' }, (gauge) => gauge.set(numberOr(config().stale_seconds, NaN)));
  registerCounterFrom(registry, { name: 'cdn_edge_config_reloads_total', help: 'Snapshots the agent activated (success) or refused (failure: invalid, too large, not verifiable; once per distinct snapshot).', labelNames: ['result'] }, (inc) => {
    inc({ result: 'success' }, numberOr(config().reloads, 0));
    inc({ result: 'failure' }, numberOr(config().reload_failures, 0));
  });
  registerCounterFrom(registry, { name: 'cdn_edge_config_pull_failures_total', help: 'Config pulls that failed (core unreachable or answering an error).', labelNames: [] }, (inc) => inc({}, numberOr(config().pull_failures, 0)));
}

function registerTelemetryMetrics(registry: Registry, status: () => AgentStatusView): void {
  const each = (field: string, inc: (labels: Record<string, string>, value: number) => void) => {
    const telemetry = status().telemetry;
    for (const stream of STREAMS) inc({ stream }, numberOr(telemetry[stream]?.[field], 0));
  };
  gaugeReadWhenScraped(registry, { name: 'cdn_edge_telemetry_queue_depth', help: 'Items waiting in the agent\'s telemetry queue of each stream (usage: with its per-minute totals).', labelNames: ['stream'] }, (gauge) => each('depth', (labels, value) => gauge.set(labels, value)));
  const dropsHelp = 'Telemetry items dropped by stream: security events and origin observations lost, usage requests whose detail (path) was folded into totals; the workers\' buffers included.';
  registerCounterFrom(registry, { name: 'cdn_edge_telemetry_drops_total', help: dropsHelp, labelNames: ['stream'] }, (inc) => each('drops', inc));
  registerCounterFrom(registry, { name: 'cdn_edge_telemetry_push_failures_total', help: 'Telemetry pushes to the core that failed and will be retried (no answer, 5xx, 401, 408, 429), by stream.', labelNames: ['stream'] }, (inc) => each('failures', inc));
  registerCounterFrom(registry, { name: 'cdn_edge_telemetry_sent_total', help: 'Telemetry items the core accepted, by stream.', labelNames: ['stream'] }, (inc) => each('sent', inc));
}

function registerPrimaryMetrics(registry: Registry, sources: PrimarySources): void {
  registerConfigMetrics(registry, sources.status);
  registerTelemetryMetrics(registry, sources.status);
  gaugeReadWhenScraped(registry, { name: 'cdn_edge_workers', help: 'Workers configured (CDN_EDGE_WORKERS), alive, and serving the agent\'s active snapshot.', labelNames: ['state'] }, (gauge) => {
    const { configured, alive, on_active_version } = sources.status().workers;
    gauge.set({ state: 'configured' }, configured);
    gauge.set({ state: 'alive' }, alive);
    gauge.set({ state: 'on_active_version' }, on_active_version);
  });
  gaugeReadWhenScraped(registry, CACHE_METRICS.objects, (gauge) => gauge.set({ tier: 'disk' }, sources.disk.count));
  gaugeReadWhenScraped(registry, CACHE_METRICS.bytes, (gauge) => gauge.set({ tier: 'disk' }, sources.disk.bytes));
  registerCounterFrom(registry, CACHE_METRICS.evictions, (inc) => inc({ tier: 'disk' }, sources.disk.evictions));
}

// Computed from the summed request counts, so it answers for the edge, not for one worker.
async function addHitRatio(edge: Registry): Promise<void> {
  const requests = await edge.getSingleMetric('cdn_edge_requests_total')?.get();
  let lookups = 0;
  let answered = 0;
  for (const { labels, value } of requests?.values ?? []) {
    const cacheStatus = String(labels.cache_status);
    if (!LOOKUPS.has(cacheStatus)) continue;
    lookups += value;
    if (ANSWERED_FROM_CACHE.has(cacheStatus)) answered += value;
  }
  const help = 'Share of cache lookups since the edge started that the cache answered (hit or stale, over hit, stale, miss and expired); NaN before the first. For a recent ratio, see docs/metrics.md.';
  new Gauge({ name: 'cdn_edge_cache_hit_ratio', help, registers: [edge] }).set(lookups > 0 ? answered / lookups : NaN);
}

/** The edge's metrics: the primary's registry, and a scrape that adds the workers' to it. */
export class EdgeMetrics {
  private readonly primary = new Registry();
  readonly contentType = this.primary.contentType;

  constructor(
    sources: PrimarySources,
    private readonly askWorkers: () => Promise<WorkerAnswers>,
  ) {
    registerPrimaryMetrics(this.primary, sources);
  }

  /** Every metric of the edge, in Prometheus's text format. */
  async exposition(): Promise<string> {
    const [workers, own] = await Promise.all([this.askWorkers(), this.primary.getMetricsAsJSON()]);
    const edge = AggregatorRegistry.aggregate<PrometheusContentType>([own, ...workers.metrics]);
    await addHitRatio(edge);
    new Gauge({ name: 'cdn_edge_metrics_workers_missing', help: 'Workers that did not answer this scrape in time (their counts are missing from it).', registers: [edge] }).set(workers.missing);
    return edge.metrics();
  }
}

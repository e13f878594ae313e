// The core's Prometheus metrics (docs/metrics.md): one registry per core process, so a test can
// start several cores in one process. Counters and histograms of events are updated where the
// events happen, through the recorders below; state (edges, zones, certificates) is read from the
// database when scraped (state-gauges.ts).
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { gaugeReadWhenScraped } from './scraped-gauge.js';
import type pg from 'pg';
import type { PublishResult } from '../publish/publisher.js';
import type { SyncRun } from '../publish/dns/dns-sync.js';
import type { RetentionOutcome } from '../core/retention.js';
import { RETENTION_TARGETS } from '../core/retention-targets.js';

/** The ingest streams of the collector (POST /api/v1/collector/*). */
export type IngestStream = 'usage' | 'security' | 'origin_health';

/** What one collector batch came to: events stored, events refused, and whether the whole batch was a replay. */
export type IngestTally = { accepted: number; rejected: number; duplicate?: boolean };

const GITOPS_STATUSES = ['applied', 'no_changes', 'rejected', 'failed', 'partial', 'refused'];
const PUBLISH_OUTCOMES = ['published', 'unchanged', 'up_to_date', 'backing_off', 'too_large', 'error'];
const DNS_ACTIONS = ['create', 'patch', 'delete'];
const INGEST_STREAMS: IngestStream[] = ['usage', 'security', 'origin_health'];
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const SECONDS_BUCKETS_LONG = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/** The method label: one of the methods the API knows, else `other` (the label set stays bounded). */
export function methodLabel(method: string): string {
  return KNOWN_METHODS.has(method) ? method : 'other';
}

/** `2xx`, `4xx`, … of a status code. */
export function statusClass(status: number): string {
  return `${Math.floor(status / 100)}xx`;
}

// SQLSTATE's first two characters name the class (23: integrity constraint, 40: transaction rollback, 57: operator intervention);
// errors without one are the connection's.
function sqlstateClass(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code.slice(0, 2) : 'connection';
}

// Series of every known label value start at zero: rate() and alert rules see them before the first event.
function zeroed<T extends Counter<string>>(counter: T, labelSets: Record<string, string>[]): T {
  for (const labels of labelSets) counter.inc(labels, 0);
  return counter;
}

const each = <K extends string>(name: K, values: readonly string[]) => values.map((value) => ({ [name]: value }) as Record<K, string>);

function httpMetrics(registry: Registry) {
  const labelNames = ['method', 'route', 'status_class'] as const;
  return {
    requests: new Counter({ name: 'cdn_core_http_requests_total', help: 'HTTP requests answered by the core, by method, route template and status class.', labelNames, registers: [registry] }),
    duration: new Histogram({ name: 'cdn_core_http_request_duration_seconds', help: 'Time from a request arriving to its answer being written, by method, route template and status class.', labelNames, registers: [registry] }),
  };
}

function databaseMetrics(registry: Registry) {
  return {
    queryErrors: new Counter({ name: 'cdn_db_query_errors_total', help: 'Queries of this process the database (or the connection) failed, by SQLSTATE class (connection: no SQLSTATE).', labelNames: ['sqlstate_class'], registers: [registry] }),
  };
}

function gitopsMetrics(registry: Registry) {
  return {
    runs: zeroed(new Counter({ name: 'cdn_gitops_runs_total', help: 'GitOps reconcile runs of the in-core controller, by status.', labelNames: ['status'], registers: [registry] }), each('status', GITOPS_STATUSES)),
    duration: new Histogram({ name: 'cdn_gitops_run_duration_seconds', help: 'Duration of GitOps reconcile runs, by status.', labelNames: ['status'], buckets: SECONDS_BUCKETS_LONG, registers: [registry] }),
    drift: new Gauge({ name: 'cdn_gitops_drift_items', help: 'Live items that differ from git, as the last GitOps run found them.', registers: [registry] }),
    refusals: new Counter({ name: 'cdn_gitops_safety_refusals_total', help: 'GitOps plans the safety gate refused (not applied).', registers: [registry] }),
  };
}

function snapshotMetrics(registry: Registry) {
  return {
    publishes: zeroed(new Counter({ name: 'cdn_snapshot_publishes_total', help: 'Snapshot publish attempts of this process, by outcome (published, unchanged, up_to_date, backing_off, too_large, error).', labelNames: ['outcome'], registers: [registry] }), each('outcome', PUBLISH_OUTCOMES)),
    failures: zeroed(new Counter({ name: 'cdn_snapshot_failures_total', help: 'Snapshot publishes that failed, by reason (too_large, error).', labelNames: ['reason'], registers: [registry] }), each('reason', ['too_large', 'error'])),
    build: new Histogram({ name: 'cdn_snapshot_build_duration_seconds', help: 'Time to build a snapshot that was then stored.', buckets: SECONDS_BUCKETS_LONG, registers: [registry] }),
    store: new Histogram({ name: 'cdn_snapshot_store_duration_seconds', help: 'Time to store a built snapshot.', buckets: SECONDS_BUCKETS_LONG, registers: [registry] }),
    bytes: new Gauge({ name: 'cdn_snapshot_last_bytes', help: 'Size in bytes of the last snapshot this process stored.', registers: [registry] }),
    version: new Gauge({ name: 'cdn_snapshot_last_published_version', help: 'Version of the last snapshot this process stored.', registers: [registry] }),
  };
}

function dnsMetrics(registry: Registry) {
  return {
    runs: zeroed(new Counter({ name: 'cdn_dns_sync_runs_total', help: 'DNS sync runs of this process, by kind (full, changes) and result (ok, zone_failures, aborted, error).', labelNames: ['kind', 'result'], registers: [registry] }), ['full', 'changes'].flatMap((kind) => ['ok', 'zone_failures', 'aborted', 'error'].map((result) => ({ kind, result })))),
    writes: zeroed(new Counter({ name: 'cdn_dns_zone_writes_total', help: 'Zones written to PowerDNS, by action (create, patch, delete).', labelNames: ['action'], registers: [registry] }), each('action', DNS_ACTIONS)),
    failures: zeroed(new Counter({ name: 'cdn_dns_zone_failures_total', help: 'Zone writes PowerDNS failed or refused, by action.', labelNames: ['action'], registers: [registry] }), each('action', DNS_ACTIONS)),
  };
}

function ingestMetrics(registry: Registry) {
  return {
    events: zeroed(new Counter({ name: 'cdn_ingest_events_total', help: 'Events the collector received from edges, by stream (usage, security, origin_health) and outcome (accepted, rejected).', labelNames: ['stream', 'outcome'], registers: [registry] }), INGEST_STREAMS.flatMap((stream) => ['accepted', 'rejected'].map((outcome) => ({ stream, outcome })))),
    duplicates: zeroed(new Counter({ name: 'cdn_ingest_duplicate_batches_total', help: 'Collector batches already stored (same idempotency key), skipped whole, by stream (usage, security).', labelNames: ['stream'], registers: [registry] }), each('stream', ['usage', 'security'])),
  };
}

function retentionMetrics(registry: Registry) {
  return {
    runs: zeroed(new Counter({ name: 'cdn_retention_runs_total', help: 'Retention runs of this process, by result (ok, failed: some table could not be pruned).', labelNames: ['result'], registers: [registry] }), each('result', ['ok', 'failed'])),
    duration: new Histogram({ name: 'cdn_retention_run_duration_seconds', help: 'Duration of retention runs.', buckets: SECONDS_BUCKETS_LONG, registers: [registry] }),
    deleted: zeroed(new Counter({ name: 'cdn_retention_deleted_rows_total', help: 'Rows retention deleted, by target.', labelNames: ['target'], registers: [registry] }), each('target', RETENTION_TARGETS.map((target) => target.name))),
  };
}

// Node's own metrics (CPU, memory, event loop lag, GC) describe the process, not a core: one registry
// of them per process, made on first use, so a test process that starts many cores starts one set of
// monitors, not one per core.
let processMetrics: Registry | undefined;
function processRegistry(): Registry {
  if (!processMetrics) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
  }
  return processMetrics;
}

/**
 * The metrics of one core process and the recorders that update them. Subsystems take it as an
 * optional dependency (absent: nothing is recorded), so they never import prom-client themselves.
 */
export class CoreMetrics {
  readonly registry = new Registry();
  private readonly http = httpMetrics(this.registry);
  private readonly database = databaseMetrics(this.registry);
  private readonly gitops = gitopsMetrics(this.registry);
  private readonly snapshots = snapshotMetrics(this.registry);
  private readonly dns = dnsMetrics(this.registry);
  private readonly ingest = ingestMetrics(this.registry);
  private readonly retention = retentionMetrics(this.registry);

  /** The Content-Type of `exposition()`. */
  readonly contentType = this.registry.contentType;

  /** Every metric of this core and of the process, in Prometheus's text format. */
  exposition(): Promise<string> {
    return Registry.merge([this.registry, processRegistry()]).metrics();
  }

  /** One answered request; `route` is the route's template (or a fixed word such as `unmatched`), never the raw path. */
  request(method: string, route: string, status: number, seconds: number): void {
    const labels = { method: methodLabel(method), route, status_class: statusClass(status) };
    this.http.requests.inc(labels);
    this.http.duration.observe(labels, seconds);
  }

  /** A query that failed. */
  queryFailed(error: unknown): void {
    this.database.queryErrors.inc({ sqlstate_class: sqlstateClass(error) });
  }

  /** One GitOps run: its status, how long it took and the drift it found (undefined when it stopped before planning: the last count stands). */
  gitopsRun(status: string, seconds: number, driftItems: number | undefined): void {
    this.gitops.runs.inc({ status });
    this.gitops.duration.observe({ status }, seconds);
    if (driftItems !== undefined) this.gitops.drift.set(driftItems);
    if (status === 'refused') this.gitops.refusals.inc();
  }

  /** A publish attempt that returned: stored, skipped, or refused as too large. */
  snapshotPublish(result: PublishResult): void {
    this.snapshots.publishes.inc({ outcome: result.outcome });
    if (result.outcome === 'too_large') this.snapshots.failures.inc({ reason: 'too_large' });
    if (result.outcome !== 'published' || !result.timings) return;
    this.snapshots.build.observe(result.timings.build_ms / 1000);
    this.snapshots.store.observe(result.timings.store_ms / 1000);
    if (result.bytes !== undefined) this.snapshots.bytes.set(result.bytes);
    if (result.version !== null) this.snapshots.version.set(result.version);
  }

  /** A publish attempt that threw while building or storing. */
  snapshotFailed(): void {
    this.snapshots.publishes.inc({ outcome: 'error' });
    this.snapshots.failures.inc({ reason: 'error' });
  }

  /** One DNS sync run: its zones written and failed, and how it ended. */
  dnsRun(run: SyncRun): void {
    const failed = run.zones.filter((zone) => zone.error);
    for (const zone of run.zones) {
      if (zone.error) this.dns.failures.inc({ action: zone.action });
      else if (zone.action !== 'none') this.dns.writes.inc({ action: zone.action });
    }
    const result = run.aborted ? 'aborted' : failed.length ? 'zone_failures' : 'ok';
    this.dns.runs.inc({ kind: run.full ? 'full' : 'changes', result });
  }

  /** A DNS sync run that threw before it could report its zones. */
  dnsRunFailed(full: boolean): void {
    this.dns.runs.inc({ kind: full ? 'full' : 'changes', result: 'error' });
  }

  /** One collector batch, once stored. */
  ingested(stream: IngestStream, tally: IngestTally): void {
    if (tally.duplicate) this.ingest.duplicates.inc({ stream });
    this.ingest.events.inc({ stream, outcome: 'accepted' }, tally.accepted);
    this.ingest.events.inc({ stream, outcome: 'rejected' }, tally.rejected);
  }

  /** A retention run this process made (runs another core made are counted there). */
  retentionRun(outcome: RetentionOutcome | 'error'): void {
    if (outcome === 'error') this.retention.runs.inc({ result: 'failed' });
    if (outcome === 'error' || outcome.outcome !== 'ran') return;
    this.retention.runs.inc({ result: outcome.error ? 'failed' : 'ok' });
    this.retention.duration.observe(outcome.durationMs / 1000);
    for (const [target, rows] of Object.entries(outcome.deleted)) this.retention.deleted.inc({ target }, rows);
  }

  /** Gauges of the pool's connections, read when scraped. */
  watchPool(pool: pg.Pool): void {
    gaugeReadWhenScraped(this.registry, { name: 'cdn_db_pool_connections', help: 'Connections of this process to the database, by state (in_use, idle).', labelNames: ['state'] }, (gauge) => {
      gauge.set({ state: 'idle' }, pool.idleCount);
      gauge.set({ state: 'in_use' }, pool.totalCount - pool.idleCount);
    });
    gaugeReadWhenScraped(this.registry, { name: 'cdn_db_pool_waiting_requests', help: 'Queries of this process waiting for a free connection.' }, (gauge) => gauge.set(pool.waitingCount));
    gaugeReadWhenScraped(this.registry, { name: 'cdn_db_pool_max_connections', help: 'Largest number of connections the pool opens.' }, (gauge) => gauge.set(pool.options.max ?? 10));
  }
}

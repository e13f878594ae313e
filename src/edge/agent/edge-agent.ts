// The edge agent of the cluster primary: config sync, heartbeat with purge
// results, and three telemetry queues shipped to the core. The integrator feeds
// it (enqueue*, setPurgeResults), listens for 'snapshot', and shows status() on /ready.
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import type { Logger } from 'pino';
import type { Config } from '../../config/load.js';
import { hasControlCharacter } from '../../shared/control-characters.js';
import { BoundedQueue } from './bounded-queue.js';
import { CertificateKeyStore } from './certificate-key-store.js';
import type { CertificateKeys } from '../../shared/certificate-key-envelope.js';
import { ConfigSync, type ConfigSyncStatus, type PullOutcome, type SnapshotSource } from './config-sync.js';
import { createCoreClient, oneLine, type CoreClient } from './core-client.js';
import { EdgeHeartbeat, edgeLabels, type HeartbeatStatus, type PurgeFailure } from './heartbeat.js';
import type { PulledSnapshot } from './snapshot-check.js';
import { serializedSize, type OriginObservation, type SecurityEvent, type UsageEvent } from './telemetry-items.js';
import { TelemetryShipper, type Batch, type ShipperStatus } from './telemetry-shipper.js';
import { takeSpool, writeSpool } from './telemetry-spool.js';
import { UsageQueue } from './usage-queue.js';
import { VersionCounters, type VersionCount } from './version-counters.js';

type AgentConfig = Pick<
  Config,
  | 'edgeCoreUrl'
  | 'edgeId'
  | 'edgeToken'
  | 'edgeDataDir'
  | 'edgeConfigMaxBytes'
  | 'edgeConfigRefreshSeconds'
  | 'edgeConfigWaitSeconds'
  | 'edgeTelemetryBatchSize'
  | 'edgeTelemetryFlushSeconds'
  | 'edgeTelemetryQueueMaxItems'
  | 'edgeTelemetryQueueMaxBytes'
  | 'edgeHeartbeatSeconds'
  | 'edgeRegion'
  | 'edgePublicIp'
  | 'edgeHttpsPort'
> &
  Partial<Pick<Config, 'edgeLabels'>>;

export type EdgeAgentOptions = {
  config: AgentConfig;
  logger: Logger;
  /** The edge's own view of its health for the heartbeat; by default, healthy once it has a config to serve. */
  healthy?: () => boolean;
  /** Reported at registration; by default the package version. */
  version?: string;
  hostname?: string;
  /** Per-request timeout towards the core. */
  timeoutMs?: number;
};

export type EdgeAgentStatus = {
  edge_id: string;
  config: ConfigSyncStatus;
  heartbeat: HeartbeatStatus;
  /** Usage `drops` are requests whose detail was folded into per-minute totals; `lost_requests` those not even the totals could take. */
  telemetry: { usage: ShipperStatus & { lost_requests: number }; security: ShipperStatus; origin_health: ShipperStatus };
  purges: { pending_acks: number; pending_failures: number };
};

/** Purge results waiting for a heartbeat; more are refused (a snapshot never carries this many). */
const MAX_PENDING_PURGE_RESULTS = 10_000;
const DEFAULT_STOP_TIMEOUT_MS = 5000;

/** CDN_EDGE_ID, or the hostname with characters outside [A-Za-z0-9._-] replaced by '-', cut to 128 characters. */
export function resolveEdgeId(configured: string | undefined, hostname: string = os.hostname()): string {
  if (configured) return configured;
  const id = hostname.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 128);
  return id || 'edge';
}

/** The version in package.json, what the edge reports itself as. */
export function edgeSoftwareVersion(): string {
  try {
    const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof version === 'string' ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}

export interface EdgeAgent {
  on(event: 'snapshot', listener: (pulled: PulledSnapshot, source: SnapshotSource) => void): this;
  /** The core confirmed these purge results (ids of acks and of failures). */
  on(event: 'purge-results-reported', listener: (acks: string[], failures: string[]) => void): this;
}

/** Everything the cluster primary does towards the core; never throws once started. */
export class EdgeAgent extends EventEmitter {
  readonly edgeId: string;
  private readonly client: CoreClient;
  private readonly sync: ConfigSync;
  private readonly certificateKeys: CertificateKeyStore;
  private readonly heartbeat: EdgeHeartbeat;
  private readonly queues: { usage: UsageQueue; security: BoundedQueue<SecurityEvent>; originHealth: BoundedQueue<OriginObservation> };
  private readonly shippers: TelemetryShipper<unknown>[];
  private readonly shipperOf: { usage: TelemetryShipper<UsageEvent>; security: TelemetryShipper<SecurityEvent>; originHealth: TelemetryShipper<OriginObservation> };
  private readonly pendingAcks = new Set<string>();
  private readonly versionCounts = new VersionCounters();
  private readonly pendingFailures = new Map<string, string>();

  /** Builds the parts; throws at once on a missing token or a bad core URL or edge id. */
  constructor(private readonly options: EdgeAgentOptions) {
    super();
    const { config, logger } = options;
    if (!config.edgeToken) throw new Error('CDN_EDGE_TOKEN is required: create one with `cdn edge-token create`');
    const hostname = options.hostname ?? os.hostname();
    this.edgeId = resolveEdgeId(config.edgeId, hostname);
    this.client = createCoreClient({ coreUrl: config.edgeCoreUrl, edgeId: this.edgeId, token: config.edgeToken, timeoutMs: options.timeoutMs });
    this.sync = new ConfigSync({ client: this.client, dataDir: config.edgeDataDir, maxBytes: config.edgeConfigMaxBytes, refreshSeconds: config.edgeConfigRefreshSeconds, waitSeconds: config.edgeConfigWaitSeconds, logger });
    this.sync.on('snapshot', (pulled, source) => this.emit('snapshot', pulled, source));
    this.certificateKeys = new CertificateKeyStore({ client: this.client, token: config.edgeToken, dataDir: config.edgeDataDir, logger });
    const version = options.version ?? edgeSoftwareVersion();
    const healthy = options.healthy ?? (() => this.sync.current() !== undefined);
    this.heartbeat = new EdgeHeartbeat({
      client: this.client,
      edgeId: this.edgeId,
      intervalSeconds: config.edgeHeartbeatSeconds,
      info: () => ({ hostname, publicIp: config.edgePublicIp, httpsPort: config.edgeHttpsPort, region: config.edgeRegion, labels: edgeLabels(config.edgeLabels ?? ''), version, healthy: healthy(), versionCounters: this.versionCounts.list(), ...this.configReport(), purgeAcks: [...this.pendingAcks], purgeFailures: this.pendingFailureList() }),
      onAcknowledged: (acks, failures) => this.forgetPurgeResults(acks, failures),
      logger,
    });
    const queue = <T>() => new BoundedQueue<T>(config.edgeTelemetryQueueMaxItems, config.edgeTelemetryQueueMaxBytes);
    this.queues = { usage: new UsageQueue(config.edgeTelemetryQueueMaxItems, config.edgeTelemetryQueueMaxBytes), security: queue(), originHealth: queue() };
    const common = { client: this.client, batchSize: config.edgeTelemetryBatchSize, flushSeconds: config.edgeTelemetryFlushSeconds, logger };
    this.shipperOf = {
      usage: new TelemetryShipper({ ...common, path: '/api/v1/collector/usage', field: 'events', queue: this.queues.usage, idempotent: true }),
      security: new TelemetryShipper({ ...common, path: '/api/v1/collector/security-events', field: 'events', queue: this.queues.security, idempotent: true }),
      originHealth: new TelemetryShipper({ ...common, path: '/api/v1/collector/origin-health', field: 'observations', queue: this.queues.originHealth, idempotent: false }),
    };
    this.shippers = Object.values(this.shipperOf) as TelemetryShipper<unknown>[];
  }

  /** Activates the last-known-good snapshot from disk (emitting 'snapshot'), then starts every loop; resolves after the disk step. */
  async start(): Promise<void> {
    await this.restoreSpool();
    await this.certificateKeys.load();
    await this.sync.start();
    this.heartbeat.start();
    for (const shipper of this.shippers) shipper.start();
  }

  /** Stops every loop, finishes saving the last-known-good and ships what the queues hold, within `timeoutMs` in all; usage and security events still undelivered are spooled to disk for the next start. */
  async stop(timeoutMs = DEFAULT_STOP_TIMEOUT_MS): Promise<void> {
    this.sync.stop();
    this.heartbeat.stop();
    await Promise.all([...this.shippers.map((shipper) => shipper.flush(timeoutMs)), this.sync.lastKnownGoodSaved()]);
    this.client.close();
    const spool = { usage: this.shipperOf.usage.drain(), security: this.shipperOf.security.drain() };
    await writeSpool(this.options.config.edgeDataDir, spool).catch((error: Error) => this.options.logger.error({ err: error }, 'could not write the telemetry spool; undelivered events are lost'));
  }

  // Origin health observations are not spooled: minutes later they no longer say anything about routing.
  private async restoreSpool(): Promise<void> {
    const { spool, problem } = await takeSpool(this.options.config.edgeDataDir);
    if (problem) this.options.logger.warn({ problem }, 'ignored the telemetry spool');
    this.shipperOf.usage.restore(spool.usage as Batch<UsageEvent>[]);
    this.shipperOf.security.restore(spool.security as Batch<SecurityEvent>[]);
  }

  /** Pulls the config now (what /__cdn_reload_config runs). */
  pullNow(): Promise<PullOutcome> {
    return this.sync.pullNow();
  }

  /** The private keys of the certificates in `pulled` (certificate-key-store.ts); `complete` false when some could not be had. */
  keysFor(pulled: PulledSnapshot): Promise<{ keys: CertificateKeys; complete: boolean }> {
    return this.certificateKeys.keysFor(pulled);
  }

  /** The active snapshot, if any. */
  currentSnapshot(): PulledSnapshot | undefined {
    return this.sync.current();
  }

  /** Queues usage events; returns how many were queued whole (the rest are folded into per-minute totals, their detail counted as drops). */
  enqueueUsage(events: readonly UsageEvent[]): number {
    let queued = 0;
    for (const event of events) if (this.queues.usage.push(event)) queued++;
    return queued;
  }

  /** Adds the workers' per-version request counts, reported in the heartbeat (docs/rollout.md). */
  countVersions(counts: readonly VersionCount[]): void {
    for (const count of counts) this.versionCounts.add(count);
  }

  /** Queues security events; returns how many were kept. */
  enqueueSecurity(events: readonly SecurityEvent[]): number {
    return enqueue(this.queues.security, events);
  }

  /** Queues origin health observations; returns how many were kept. */
  enqueueObservations(observations: readonly OriginObservation[]): number {
    return enqueue(this.queues.originHealth, observations);
  }

  /** Adds purge results to report on the next heartbeats, until one the core accepted carried them. */
  setPurgeResults(acks: readonly string[], failures: readonly PurgeFailure[]): void {
    for (const id of acks) if (isPurgeId(id) && this.hasRoomForPurgeResult()) this.pendingAcks.add(id);
    for (const failure of failures) {
      if (!isPurgeId(failure.id) || !this.hasRoomForPurgeResult()) continue;
      const error = typeof failure.error === 'string' ? oneLine(failure.error, 500) : '';
      this.pendingFailures.set(failure.id, error || 'failed');
    }
  }

  /** Sends one heartbeat now (the integrator may call it right after purges ran, so they complete sooner). */
  beatNow(): Promise<boolean> {
    return this.heartbeat.beat();
  }

  /** What the edge's /ready shows. */
  status(): EdgeAgentStatus {
    return {
      edge_id: this.edgeId,
      config: this.sync.status(),
      heartbeat: this.heartbeat.status(),
      telemetry: { usage: { ...this.shipperOf.usage.status(), lost_requests: this.queues.usage.lostRequests }, security: this.shipperOf.security.status(), origin_health: this.shipperOf.originHealth.status() },
      purges: { pending_acks: this.pendingAcks.size, pending_failures: this.pendingFailures.size },
    };
  }

  // The refusal is reported only while the edge stays behind the version the core offers (a later activation makes it history).
  private configReport(): { configVersion: number | null; configChecksum: string | null; configError: string | null } {
    const status = this.sync.status();
    const behind = status.core_version !== null && status.core_version !== status.version;
    return { configVersion: status.version, configChecksum: status.checksum, configError: behind ? status.last_reload_error : null };
  }

  private pendingFailureList(): PurgeFailure[] {
    return [...this.pendingFailures].map(([id, error]) => ({ id, error }));
  }

  private forgetPurgeResults(acks: string[], failures: string[]): void {
    for (const id of acks) this.pendingAcks.delete(id);
    for (const id of failures) this.pendingFailures.delete(id);
    if (acks.length || failures.length) this.emit('purge-results-reported', acks, failures);
  }

  private hasRoomForPurgeResult(): boolean {
    if (this.pendingAcks.size + this.pendingFailures.size < MAX_PENDING_PURGE_RESULTS) return true;
    this.options.logger.warn({ limit: MAX_PENDING_PURGE_RESULTS }, 'too many purge results waiting for a heartbeat; dropping one');
    return false;
  }
}

function enqueue<T>(queue: BoundedQueue<T>, items: readonly T[]): number {
  let kept = 0;
  for (const item of items) if (queue.push(item, serializedSize(item))) kept++;
  return kept;
}

/** A purge id the heartbeat schema takes (1-64 characters, no control characters). */
function isPurgeId(id: unknown): id is string {
  return typeof id === 'string' && id.length > 0 && id.length <= 64 && !hasControlCharacter(id);
}

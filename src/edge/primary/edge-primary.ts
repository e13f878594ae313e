import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../../config/load.js';
import { inOrder } from '../../shared/in-order.js';
import type { CertificateKeys } from '../../shared/certificate-key-envelope.js';
import type { SnapshotDomain } from '../../shared/snapshot.js';
import { EdgeAgent } from '../agent/edge-agent.js';
import { snapshotBytes, type PulledSnapshot } from '../agent/snapshot-check.js';
import { DiskCacheIndex } from '../cache/disk-index.js';
import { OriginProber } from '../origin/prober.js';
import type { AgentStatusView, ToPrimary, ToWorker } from '../worker/messages.js';
import { InvalidationSweeper } from './invalidation-sweeper.js';
import { PurgeCoordinator } from './purge-coordinator.js';
import { sendTo } from './send-to-worker.js';
import { EdgeMetrics } from '../metrics/edge-scrape.js';
import { startMetricsListener } from '../metrics/metrics-listener.js';
import { WorkerMetricsRequests } from './worker-metrics-requests.js';

const STATUS_INTERVAL_MS = 1000;
const EVICT_INTERVAL_MS = 5000;
const RESPAWN_DELAY_MS = 1000;
/** How long shutdown waits for the workers' last telemetry (their own drain takes at most 2 s). */
const DRAIN_WAIT_MS = 3000;
/** How often keys the core could not deliver are asked for again. */
const KEYS_RETRY_MS = 5000;

type SnapshotMessage = Extract<ToWorker, { t: 'snapshot' }>;
/** The active snapshot, its certificates' keys, and the whole-snapshot message for workers that need it (built when one does). */
type Current = { pulled: PulledSnapshot; keys: CertificateKeys; message?: SnapshotMessage };

function sameKeys(a: CertificateKeys, b: CertificateKeys): boolean {
  const names = Object.keys(a);
  return names.length === Object.keys(b).length && names.every((name) => a[name] === b[name]);
}

/**
 * The edge's primary process: runs the agent (register, heartbeat, config pull,
 * telemetry push), the origin prober and the shared disk cache's index, forks
 * the workers and keeps them on the active snapshot. It serves no traffic.
 */
export async function runEdgePrimary(config: Config, logger: Logger, workerEnv: Record<string, string>): Promise<void> {
  const workerCount = config.edgeWorkers || availableParallelism();
  const aliveWorkers = () => Object.values(cluster.workers ?? {}).filter((worker) => worker?.isConnected()).length;
  const agent = new EdgeAgent({ config, logger, healthy: () => current !== undefined && aliveWorkers() > 0 });
  const workerDrops = { usage: 0, security: 0, observations: 0 };
  const usageTally = { requests: 0, with_client_ip: 0 };
  const purges = new PurgeCoordinator(config.edgeDataDir);
  const disk = new DiskCacheIndex(path.join(config.edgeDataDir, 'cache'), config.edgeCacheDiskBytes);
  const sweeper = new InvalidationSweeper(disk, {
    onError: (error) => logger.warn({ err: error }, 'disk cache invalidation failed'),
    onDropped: (count) => logger.warn({ dropped: count }, 'disk cache invalidation queue full: the oldest resources were not swept'),
  });
  const workerVersions = new Map<number, number>();
  const reloadWaiters: { worker: Worker; id: number }[] = [];
  let current: Current | undefined;
  let stopping = false;
  await Promise.all([purges.load(), disk.load()]);
  // Results a previous run carried out but the core never confirmed.
  const unreported = purges.unreported();
  agent.setPurgeResults(unreported.acks, unreported.failures);
  agent.on('purge-results-reported', (acks: string[], failures: string[]) => {
    void purges.reported(acks, failures).catch((error: Error) => logger.warn({ err: error }, 'could not save the reported purge results'));
  });

  const prober = new OriginProber({
    intervalSeconds: config.edgeProbeIntervalSeconds,
    connectTimeoutCapMs: config.edgeProxyConnectTimeoutSeconds * 1000,
    readTimeoutCapMs: config.edgeProxyReadTimeoutSeconds * 1000,
    onObservation: (observation) => {
      agent.enqueueObservations([observation]);
      broadcast({ t: 'probe', observations: [observation] });
    },
  });

  function broadcast(message: ToWorker): void {
    for (const worker of Object.values(cluster.workers ?? {})) if (worker) sendTo(worker, message);
  }

  async function activate(pulled: PulledSnapshot): Promise<void> {
    const apexById = new Map(pulled.snapshot.domains.map((domain: SnapshotDomain) => [domain.id, domain.domain]));
    const acks: string[] = [];
    const failures: { id: string; error: string }[] = [];
    for (const purge of purges.fresh(pulled.snapshot.purges)) {
      try {
        await disk.purge(purge, apexById.get(purge.domain_id) ?? '');
        acks.push(purge.id);
      } catch (error) {
        failures.push({ id: purge.id, error: `disk cache purge failed: ${(error as Error).message}`.slice(0, 500) });
      }
    }
    purges.expect(pulled.version, acks, failures);
    // The keys travel with their snapshot: a worker swaps certificates and config at once.
    const { keys, complete } = await agent.keysFor(pulled);
    const previous = current;
    current = { pulled, keys };
    prober.update(pulled.snapshot.domains);
    // Workers on the version the change starts from compile only what changed; any other asks for the whole snapshot.
    const { change } = pulled;
    if (change && previous?.pulled.version === change.since && previous.pulled.checksum === change.sinceChecksum) {
      broadcast({ t: 'snapshot-change', version: pulled.version, checksum: pulled.checksum, createdAt: pulled.createdAt, change, ...(sameKeys(keys, previous.keys) ? {} : { keys }) });
    } else broadcast(wholeSnapshot(current));
    if (!complete) retryKeysLater(pulled);
  }

  function wholeSnapshot(active: Current): SnapshotMessage {
    const { pulled, keys } = active;
    active.message ??= { t: 'snapshot', version: pulled.version, checksum: pulled.checksum, createdAt: pulled.createdAt, json: snapshotBytes(pulled).toString('utf8'), keys };
    return active.message;
  }

  // Until the core delivers every key of the active snapshot (its names fail their handshakes meanwhile).
  function retryKeysLater(pulled: PulledSnapshot): void {
    setTimeout(() => {
      if (stopping || current?.pulled !== pulled) return;
      void agent.keysFor(pulled).then(({ keys, complete }) => {
        if (current?.pulled !== pulled) return;
        current.keys = keys;
        current.message = undefined;
        broadcast({ t: 'certificate-keys', keys });
        if (!complete) retryKeysLater(pulled);
      });
    }, KEYS_RETRY_MS).unref();
  }

  async function settlePurges(): Promise<void> {
    if (!current) return;
    const alive = Object.values(cluster.workers ?? {}).filter((worker) => worker?.isConnected());
    if (!alive.length) return;
    const lowest = Math.min(...alive.map((worker) => workerVersions.get(worker!.id) ?? -1));
    const due = await purges.due(lowest, current.pulled.snapshot.purges);
    if (!due) return;
    agent.setPurgeResults(due.acks, due.failures);
    await agent.beatNow();
  }

  // Drops in the workers' buffers count as drops of the queue they were meant for (for usage: requests
  // counted without their path). client_ip_rate is the share of requests whose event kept the address.
  function statusView(): AgentStatusView {
    const status = agent.status();
    const { usage, security, origin_health } = status.telemetry;
    return {
      edge_id: agent.edgeId,
      config: status.config as unknown as Record<string, unknown>,
      heartbeat: status.heartbeat as unknown as Record<string, unknown>,
      telemetry: {
        usage: { ...usage, drops: usage.drops + workerDrops.usage, requests: usageTally.requests, client_ip_rate: usageTally.requests ? Math.round((usageTally.with_client_ip / usageTally.requests) * 10000) / 10000 : null },
        security: { ...security, drops: security.drops + workerDrops.security },
        origin_health: { ...origin_health, drops: origin_health.drops + workerDrops.observations },
      },
      purges: { applied: purges.appliedCount, failed: purges.failed, pending: purges.pendingCount + status.purges.pending_acks + status.purges.pending_failures },
      workers: { configured: workerCount, alive: aliveWorkers(), on_active_version: [...workerVersions.values()].filter((version) => version === current?.pulled.version).length },
      core_version: status.config.core_version,
    };
  }

  function onWorkerMessage(worker: Worker, message: ToPrimary): void {
    switch (message.t) {
      case 'listening':
        if (current) sendTo(worker, wholeSnapshot(current));
        sendTo(worker, { t: 'status', status: statusView() });
        return;
      case 'need-snapshot':
        if (current) sendTo(worker, wholeSnapshot(current));
        return;
      case 'activated':
        workerVersions.set(worker.id, message.version);
        void settlePurges().catch((error: Error) => logger.error({ err: error }, 'purge settlement failed'));
        return;
      case 'activation-failed':
        logger.error({ worker: worker.process.pid, version: message.version, error: message.error }, 'a worker could not activate the snapshot');
        return;
      case 'telemetry':
        if (message.usage.length) agent.enqueueUsage(message.usage);
        agent.countVersions(message.versions ?? []);
        if (message.security.length) agent.enqueueSecurity(message.security);
        if (message.observations.length) agent.enqueueObservations(message.observations);
        workerDrops.usage += message.dropped.usage;
        usageTally.requests += message.usageTally.requests;
        usageTally.with_client_ip += message.usageTally.with_client_ip;
        workerDrops.security += message.dropped.security;
        workerDrops.observations += message.dropped.observations;
        for (const stored of message.stored) disk.noteStored(stored.file, stored.size, stored.resource);
        return;
      case 'drained':
        drained.get(worker.id)?.();
        return;
      case 'invalidate':
        // The sender has invalidated its own cache already; a batch goes on as one message per worker.
        for (const other of Object.values(cluster.workers ?? {})) if (other && other !== worker) sendTo(other, { t: 'invalidate', invalidations: message.invalidations });
        sweeper.add(message.invalidations);
        return;
      case 'metrics':
        metricsRequests.answered(worker, message.id, message.metrics);
        return;
      case 'reload':
        reloadWaiters.push({ worker, id: message.id });
        void agent.pullNow().then(
          (result) => answerReloads(result as unknown as Record<string, unknown>),
          (error: Error) => answerReloads({ outcome: 'unreachable', detail: error.message }),
        );
        return;
    }
  }

  function answerReloads(result: Record<string, unknown>): void {
    for (const waiter of reloadWaiters.splice(0)) sendTo(waiter.worker, { t: 'reload-result', id: waiter.id, result });
  }

  // Called when a worker has sent its last telemetry (or exited): shutdown waits for every one.
  const drained = new Map<number, () => void>();

  async function drainWorkers(): Promise<void> {
    const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker?.isConnected() === true);
    const done = workers.map((worker) => new Promise<void>((resolve) => drained.set(worker.id, resolve)));
    for (const worker of workers) sendTo(worker, { t: 'drain' });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, DRAIN_WAIT_MS)));
    await Promise.race([Promise.all(done), timeout]);
    clearTimeout(timer);
  }

  function fork(): void {
    const worker = cluster.fork(workerEnv);
    worker.on('message', (message: ToPrimary) => onWorkerMessage(worker, message));
  }

  cluster.on('exit', (worker, code, signal) => {
    workerVersions.delete(worker.id);
    drained.get(worker.id)?.();
    if (stopping) return;
    logger.error({ pid: worker.process.pid, code, signal }, 'edge worker exited; starting another');
    setTimeout(() => !stopping && fork(), RESPAWN_DELAY_MS).unref();
  });

  const metricsRequests = new WorkerMetricsRequests();
  const connectedWorkers = () => Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker?.isConnected() === true);
  const edgeMetrics = new EdgeMetrics({ status: statusView, disk }, () => metricsRequests.ask(connectedWorkers()));
  // Port 0: no metrics listener (and the workers count nothing). Bound before anything starts: a taken port stops the edge at once.
  const metricsListener = config.edgeMetricsPort > 0 ? await startMetricsListener(config.edgeMetricsPort, config.edgeMetricsBind, edgeMetrics, logger) : undefined;

  // One activation at a time, in the order the agent announced them: the last-known-good from
  // disk must not finish after (and so replace) a newer snapshot pulled meanwhile.
  const activateInOrder = inOrder((pulled: PulledSnapshot) => activate(pulled), (error) => logger.error({ err: error }, 'snapshot activation failed'));
  agent.on('snapshot', (pulled: PulledSnapshot) => activateInOrder(pulled));
  await agent.start();
  for (let index = 0; index < workerCount; index++) fork();

  const statusTimer = setInterval(() => broadcast({ t: 'status', status: statusView() }), STATUS_INTERVAL_MS);
  const evictTimer = setInterval(() => void disk.evict().catch((error: Error) => logger.warn({ err: error }, 'disk cache eviction failed')), EVICT_INTERVAL_MS);

  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'edge shutting down');
    clearInterval(statusTimer);
    clearInterval(evictTimer);
    prober.stop();
    metricsListener?.close();
    await drainWorkers();
    for (const worker of Object.values(cluster.workers ?? {})) worker?.disconnect();
    await agent.stop();
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => void shutdown(signal));
}

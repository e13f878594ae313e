// The messages between the edge primary (agent) and its workers, over the
// cluster IPC channel. Plain JSON; every message has a `t` naming its kind.

/** What /health and /ready show about the agent; the primary sends it to every worker each second. */
export type AgentStatusView = {
  edge_id: string;
  config: Record<string, unknown>;
  heartbeat: Record<string, unknown>;
  telemetry: Record<string, Record<string, unknown>>;
  purges: { applied: number; failed: number; pending: number };
  /** Workers configured, running, and serving the primary's active snapshot. */
  workers: { configured: number; alive: number; on_active_version: number };
  core_version: number | null;
};

export type { OriginObservation, SecurityEvent, UsageEvent } from '../agent/telemetry-items.js';
import type { OriginObservation, SecurityEvent, UsageEvent } from '../agent/telemetry-items.js';
import type { OriginObservation as ProbeObservation } from '../origin/observation.js';
import type { Invalidation } from '../cache/invalidation-log.js';
import type { StoredFile } from '../cache/disk-spool.js';
import type { UsageTally } from './usage-aggregator.js';
import type { VersionCount } from '../agent/version-counters.js';
import type { CertificateKeys } from '../../shared/certificate-key-envelope.js';
import type { SnapshotChange } from '../config/active-config.js';

export type ToWorker =
  /** A snapshot to activate, with the private keys (PEM by certificate id) of its certificates the primary has. */
  | { t: 'snapshot'; version: number; checksum: string; createdAt: number | null; json: string; keys: CertificateKeys }
  /**
   * The next snapshot as its change from the one before (`change.since`): what a worker on that version
   * compiles instead of the whole snapshot; `keys` only when they differ from the ones it has.
   */
  | { t: 'snapshot-change'; version: number; checksum: string; createdAt: number | null; change: SnapshotChange; keys?: CertificateKeys }
  /** Keys of the active snapshot's certificates that arrived after it (the core could not deliver them at first). */
  | { t: 'certificate-keys'; keys: CertificateKeys }
  | { t: 'status'; status: AgentStatusView }
  | { t: 'probe'; observations: ProbeObservation[] }
  | { t: 'reload-result'; id: number; result: Record<string, unknown> }
  /** Resources a worker invalidated (an unsafe method's response, RFC 9111 §4.4), one batch: every worker drops them. */
  | { t: 'invalidate'; invalidations: Invalidation[] }
  /** Shutdown: stop accepting, let requests in flight finish, send the last telemetry, then answer 'drained'. */
  | { t: 'drain' }
  /** A scrape of the edge's metrics: answer 'metrics' with the same id. */
  | { t: 'metrics-request'; id: number };

export type ToPrimary =
  | { t: 'listening' }
  | { t: 'activated'; version: number; purgeIds: string[] }
  | { t: 'activation-failed'; version: number; error: string }
  /** A change did not start from this worker's version: send the whole active snapshot. */
  | { t: 'need-snapshot' }
  | {
      t: 'telemetry';
      usage: UsageEvent[];
      /** Every request the usage events count, and how many kept their client address (the sampling rate /ready shows). */
      usageTally: UsageTally;
      security: SecurityEvent[];
      observations: OriginObservation[];
      /** Usage: requests counted without their path (detail lost, never the request); the others: items dropped. */
      dropped: { usage: number; security: number; observations: number };
      stored: StoredFile[];
      /** Requests per config version since the last message (docs/rollout.md). */
      versions: VersionCount[];
    }
  | { t: 'reload'; id: number }
  /** This worker invalidated these resources (a batch, one entry per resource): tell every worker, sweep the disk tier. */
  | { t: 'invalidate'; invalidations: Invalidation[] }
  /** Sent after the worker's last telemetry message (IPC keeps order): the primary may now stop the agent. */
  | { t: 'drained' }
  /** The worker's metrics (prom-client's getMetricsAsJSON()), for the scrape `id`. */
  | { t: 'metrics'; id: number; metrics: object[] };

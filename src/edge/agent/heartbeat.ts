// Registers the edge and sends its heartbeat every intervalSeconds
// (schemas/api/edge-register.json, edge-heartbeat.json). The heartbeat carries the
// purge results the edge has not yet reported; once the core answered 200 they are
// handed back to onAcknowledged so the caller forgets them. Neither ever blocks serving.
import { isIP } from 'node:net';
import type { Logger } from 'pino';
import { hasControlCharacter } from '../../shared/control-characters.js';
import { describeAnswer, oneLine, type CoreClient } from './core-client.js';
import { MAX_REPORTED_VERSIONS, type VersionCount } from './version-counters.js';

const LABEL = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** CDN_EDGE_LABELS as the heartbeat reports them: comma-separated, lower-cased, at most 32; malformed ones are left out (a bad one would fail every heartbeat with 422). */
export function edgeLabels(raw: string): string[] {
  return [...new Set(raw.split(',').map((label) => label.trim().toLowerCase()))].filter((label) => LABEL.test(label)).slice(0, 32);
}

export type PurgeFailure = { id: string; error: string };

/** What the edge says about itself, read afresh for each request. */
export type HeartbeatInfo = {
  hostname: string;
  publicIp?: string;
  /** The TLS listener's port (CDN_EDGE_HTTPS_PORT), for the core's certificate check; none when 0. */
  httpsPort?: number;
  region?: string;
  /** CDN_EDGE_LABELS, already checked (edgeLabels). */
  labels?: readonly string[];
  version: string;
  /** Requests per recent config version (docs/rollout.md). */
  versionCounters?: readonly VersionCount[];
  healthy: boolean;
  configVersion: number | null;
  configChecksum: string | null;
  /** Why the edge refused the newer version the core offers; null when it serves what the core offers. */
  configError: string | null;
  purgeAcks: readonly string[];
  purgeFailures: readonly PurgeFailure[];
};

export type HeartbeatStatus = {
  registered: boolean;
  last_heartbeat_at: number | null;
  last_heartbeat_error: string | null;
  consecutive_failures: number;
  /** Whether the core's last answer counted this edge in the shared pool. */
  in_pool: boolean | null;
};

export type EdgeHeartbeatOptions = {
  client: CoreClient;
  edgeId: string;
  intervalSeconds: number;
  info: () => HeartbeatInfo;
  onAcknowledged: (acks: string[], failures: string[]) => void;
  logger: Logger;
};

/** The heartbeat schema's bound on each purge list. */
export const MAX_PURGE_REPORTS = 1000;
const BACKOFF_FIRST_MS = 1000;
const BACKOFF_MAX_MS = 30_000;

/** The register fields the schema allows, each omitted when empty or unusable (a bad one would fail every request with 422). */
export function registerFields(edgeId: string, info: HeartbeatInfo): Record<string, unknown> {
  const fields: Record<string, unknown> = { edge_id: edgeId };
  const text = (value: string | undefined, max: number) => (value && !hasControlCharacter(value) ? value.slice(0, max) : undefined);
  const hostname = text(info.hostname, 253);
  if (hostname) fields.hostname = hostname;
  if (info.publicIp && isIP(info.publicIp) !== 0) fields.public_ip = info.publicIp;
  if (info.httpsPort && Number.isInteger(info.httpsPort) && info.httpsPort > 0 && info.httpsPort <= 65535) fields.https_port = info.httpsPort;
  const region = text(info.region?.trim(), 64);
  if (region) fields.region = region;
  const version = text(info.version, 64);
  if (version) fields.version = version;
  return fields;
}

/** The heartbeat body: the register fields plus health, config version, checksum and refusal, and at most 1000 purge results of each kind. */
export function heartbeatBody(edgeId: string, info: HeartbeatInfo): { body: Record<string, unknown>; acks: string[]; failures: PurgeFailure[] } {
  const acks = [...new Set(info.purgeAcks)].slice(0, MAX_PURGE_REPORTS);
  const failures = info.purgeFailures.slice(0, MAX_PURGE_REPORTS);
  const body: Record<string, unknown> = { ...registerFields(edgeId, info), healthy: info.healthy, config_version: info.configVersion, config_checksum: info.configChecksum, config_error: info.configError === null ? null : oneLine(info.configError, 500) };
  if (info.labels?.length) body.labels = [...info.labels];
  if (info.versionCounters?.length) body.version_counters = info.versionCounters.slice(0, MAX_REPORTED_VERSIONS);
  if (acks.length > 0) body.purge_acks = acks;
  if (failures.length > 0) body.purge_failures = failures;
  return { body, acks, failures };
}

/** Registers the edge, then beats every intervalSeconds; failures are counted and logged, never thrown. */
export class EdgeHeartbeat {
  private registered = false;
  private lastHeartbeatAt: number | null = null;
  private lastError: string | null = null;
  private consecutiveFailures = 0;
  private inPool: boolean | null = null;
  private stopped = true;
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly options: EdgeHeartbeatOptions) {}

  /** Registers in the background and starts the heartbeat loop (a heartbeat registers too, so it does not wait). */
  start(): void {
    this.stopped = false;
    void this.register();
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.wake?.();
  }

  /** Posts the registration until the core accepts it, with backoff (1 s doubling to 30 s); resolves when registered or stopped. */
  async register(): Promise<void> {
    for (let attempt = 0; !this.stopped && !this.registered; attempt++) {
      const problem = await this.post('/api/v1/edge/register', registerFields(this.options.edgeId, this.options.info()));
      if (problem === undefined) {
        this.registered = true;
        this.options.logger.info({ edge_id: this.options.edgeId }, 'registered with the core');
        return;
      }
      if (attempt === 0) this.options.logger.warn({ error: problem }, 'edge registration failed; retrying with backoff');
      await this.sleep(Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.min(attempt, 15)));
    }
  }

  /** Sends one heartbeat now; on a 200 hands the purge results it carried to onAcknowledged. */
  async beat(): Promise<boolean> {
    const { body, acks, failures } = heartbeatBody(this.options.edgeId, this.options.info());
    const problem = await this.post('/api/v1/edge/heartbeat', body);
    if (problem !== undefined) {
      if (this.consecutiveFailures === 0 || problem !== this.lastError) this.options.logger.warn({ error: problem, consecutive_failures: this.consecutiveFailures + 1 }, 'heartbeat failed');
      this.consecutiveFailures++;
      this.lastError = problem;
      return false;
    }
    if (this.consecutiveFailures > 0) this.options.logger.info({ after_failures: this.consecutiveFailures }, 'heartbeat works again');
    this.consecutiveFailures = 0;
    this.lastError = null;
    this.registered = true;
    this.lastHeartbeatAt = Math.floor(Date.now() / 1000);
    if (acks.length > 0 || failures.length > 0) this.options.onAcknowledged(acks, failures.map((failure) => failure.id));
    return true;
  }

  status(): HeartbeatStatus {
    return { registered: this.registered, last_heartbeat_at: this.lastHeartbeatAt, last_heartbeat_error: this.lastError, consecutive_failures: this.consecutiveFailures, in_pool: this.inPool };
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.beat().finally(() => {
        if (!this.stopped) this.schedule(this.options.intervalSeconds * 1000);
      });
    }, delayMs);
  }

  /** Posts `body`; undefined on a 200, else why not (one line). */
  private async post(path: string, body: Record<string, unknown>): Promise<string | undefined> {
    try {
      const answer = await this.options.client.send('POST', path, body);
      if (answer.status !== 200) return `core answered ${describeAnswer(answer)}`;
      // Only a heartbeat's answer says whether the edge is in the pool (a registration answers false).
      if (path.endsWith('/heartbeat')) this.inPool = inPoolOf(answer.json);
      return undefined;
    } catch (error) {
      return oneLine((error as Error).message);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}

function inPoolOf(json: <T>() => T): boolean | null {
  try {
    const inPool = json<{ data?: { in_pool?: unknown } }>().data?.in_pool;
    return typeof inPool === 'boolean' ? inPool : null;
  } catch {
    return null;
  }
}

import type { StoredFile } from '../cache/disk-spool.js';
import { VersionCounters } from '../agent/version-counters.js';
import type { OriginObservation, SecurityEvent, ToPrimary, UsageEvent } from './messages.js';
import { UsageAggregator } from './usage-aggregator.js';

const FLUSH_MS = 100;

type Stream = 'security' | 'observations';

/**
 * A worker's share of the edge's telemetry queues: events wait here and go to
 * the primary over IPC every 100 ms, where the agent's queues take them. Each
 * stream has a budget, the worker's share of the room left in the primary's
 * queue (refreshed with the agent's status every second). Past it a security
 * event or observation is only counted as dropped; usage is aggregated
 * (usage-aggregator.ts) and past the budget loses detail, never requests.
 */
export class TelemetryBuffer {
  private readonly usageEvents: UsageAggregator;
  private securityEvents: SecurityEvent[] = [];
  private observationList: OriginObservation[] = [];
  private storedFiles: StoredFile[] = [];
  private readonly versionCounts = new VersionCounters();
  private dropped = { security: 0, observations: 0 };
  private readonly budget: Record<Stream, number>;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly share: number,
    private readonly send: (message: ToPrimary) => void,
  ) {
    this.budget = { security: share, observations: share };
    this.usageEvents = new UsageAggregator(share);
    this.timer = setInterval(() => this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  /** Sets each stream's budget from the room the primary's queues have left (their depth against their bound). */
  setRoom(room: Record<Stream | 'usage', number>): void {
    const share = (stream: Stream | 'usage') => Math.max(0, Math.min(this.share, Math.floor(room[stream])));
    for (const stream of ['security', 'observations'] as const) this.budget[stream] = share(stream);
    this.usageEvents.setRoom(share('usage'));
  }

  countVersion(version: number, status: number, originFailed: boolean): void {
    this.versionCounts.count(version, status, originFailed);
  }

  /** Counts one request's usage; never dropped. */
  usage(event: UsageEvent): void {
    this.usageEvents.add(event);
  }

  security(event: SecurityEvent): void {
    if (this.take('security')) this.securityEvents.push(event);
  }

  observation(observation: OriginObservation): void {
    if (this.take('observations')) this.observationList.push(observation);
  }

  stored(file: string, size: number, resource: string): void {
    if (this.storedFiles.length < this.share) this.storedFiles.push({ file, size, resource });
  }

  /** Sends what is buffered (called on the timer and before the worker exits). */
  flush(): void {
    const { security, observations } = this.dropped;
    const versions = this.versionCounts.take();
    if (this.usageEvents.empty && !this.securityEvents.length && !this.observationList.length && !this.storedFiles.length && !versions.length && !security && !observations) return;
    const usage = this.usageEvents.take();
    const dropped = { usage: usage.tally.without_path, security, observations };
    this.send({ t: 'telemetry', usage: usage.events, usageTally: usage.tally, security: this.securityEvents, observations: this.observationList, dropped, stored: this.storedFiles, versions });
    this.securityEvents = [];
    this.observationList = [];
    this.storedFiles = [];
    this.dropped = { security: 0, observations: 0 };
  }

  stop(): void {
    clearInterval(this.timer);
    this.flush();
  }

  private take(stream: Stream): boolean {
    if (this.budget[stream] > 0) {
      this.budget[stream]--;
      return true;
    }
    this.dropped[stream]++;
    return false;
  }
}

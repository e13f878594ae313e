import type { StoredFile } from '../cache/disk-spool.js';
import { VersionCounters } from '../agent/version-counters.js';
import type { OriginObservation, SecurityEvent, ToPrimary, UsageEvent } from './messages.js';

const FLUSH_MS = 100;

type Stream = 'usage' | 'security' | 'observations';

/**
 * A worker's share of the edge's telemetry queues: events wait here and go to
 * the primary over IPC every 100 ms, where the agent's queues take them. Each
 * stream has a budget, the worker's share of the room left in the primary's
 * queue (refreshed with the agent's status every second): past it an event is
 * only counted as dropped, before it is even built, so a full queue costs a
 * request one counter, never serialization or memory.
 */
export class TelemetryBuffer {
  private usageEvents: UsageEvent[] = [];
  private securityEvents: SecurityEvent[] = [];
  private observationList: OriginObservation[] = [];
  private storedFiles: StoredFile[] = [];
  private readonly versionCounts = new VersionCounters();
  private dropped = { usage: 0, security: 0, observations: 0 };
  private readonly budget: Record<Stream, number>;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly share: number,
    private readonly send: (message: ToPrimary) => void,
  ) {
    this.budget = { usage: share, security: share, observations: share };
    this.timer = setInterval(() => this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  /** Sets each stream's budget from the room the primary's queues have left (their depth against their bound). */
  setRoom(room: Record<Stream, number>): void {
    for (const stream of ['usage', 'security', 'observations'] as const) this.budget[stream] = Math.max(0, Math.min(this.share, Math.floor(room[stream])));
  }

  /** True when a usage event may be queued now; otherwise the drop is counted. Ask before building the event. */
  acceptsUsage(): boolean {
    return this.take('usage');
  }

  countVersion(version: number, status: number, originFailed: boolean): void {
    this.versionCounts.count(version, status, originFailed);
  }

  usage(event: UsageEvent): void {
    this.usageEvents.push(event);
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
    const { usage, security, observations } = this.dropped;
    const versions = this.versionCounts.take();
    if (!this.usageEvents.length && !this.securityEvents.length && !this.observationList.length && !this.storedFiles.length && !versions.length && !usage && !security && !observations) return;
    this.send({ t: 'telemetry', usage: this.usageEvents, security: this.securityEvents, observations: this.observationList, dropped: this.dropped, stored: this.storedFiles, versions });
    this.usageEvents = [];
    this.securityEvents = [];
    this.observationList = [];
    this.storedFiles = [];
    this.dropped = { usage: 0, security: 0, observations: 0 };
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

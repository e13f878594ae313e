import type { OriginObservation, SecurityEvent, ToPrimary, UsageEvent } from './messages.js';

const FLUSH_MS = 100;

/**
 * A worker's share of the edge's telemetry queues: events wait here (bounded,
 * so a stalled primary costs drops, never memory or a blocked request) and go
 * to the primary over IPC every 100 ms, where the agent's queues take them.
 */
export class TelemetryBuffer {
  private usageEvents: UsageEvent[] = [];
  private securityEvents: SecurityEvent[] = [];
  private observationList: OriginObservation[] = [];
  private storedFiles: { file: string; size: number }[] = [];
  private dropped = { usage: 0, security: 0, observations: 0 };
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly maxItems: number,
    private readonly send: (message: ToPrimary) => void,
  ) {
    this.timer = setInterval(() => this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  usage(event: UsageEvent): void {
    if (this.usageEvents.length < this.maxItems) this.usageEvents.push(event);
    else this.dropped.usage++;
  }

  security(event: SecurityEvent): void {
    if (this.securityEvents.length < this.maxItems) this.securityEvents.push(event);
    else this.dropped.security++;
  }

  observation(observation: OriginObservation): void {
    if (this.observationList.length < this.maxItems) this.observationList.push(observation);
    else this.dropped.observations++;
  }

  stored(file: string, size: number): void {
    if (this.storedFiles.length < this.maxItems) this.storedFiles.push({ file, size });
  }

  /** Sends what is buffered (called on the timer and before the worker exits). */
  flush(): void {
    const { usage, security, observations } = this.dropped;
    if (!this.usageEvents.length && !this.securityEvents.length && !this.observationList.length && !this.storedFiles.length && !usage && !security && !observations) return;
    this.send({ t: 'telemetry', usage: this.usageEvents, security: this.securityEvents, observations: this.observationList, dropped: this.dropped, stored: this.storedFiles });
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
}

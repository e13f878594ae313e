// Ships one telemetry queue to its collector endpoint in batches. A batch keeps
// its idempotency key across retries until the core answers 200, so a retry after
// a lost answer is never counted twice; while the core is down it backs off and
// the queue keeps bounding (drops counted). A batch the core refuses as a whole is
// dropped and counted, so one poison batch cannot stall the queue.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { TelemetryQueue } from './bounded-queue.js';
import { describeAnswer, oneLine, type CoreAnswer, type CoreClient } from './core-client.js';

export type CollectorPath = '/api/v1/collector/usage' | '/api/v1/collector/security-events' | '/api/v1/collector/origin-health';

export type TelemetryShipperOptions<T> = {
  client: CoreClient;
  path: CollectorPath;
  field: 'events' | 'observations';
  queue: TelemetryQueue<T>;
  batchSize: number;
  flushSeconds: number;
  /** Whether batches carry an idempotency_key (usage and security events do; origin health has no such field). */
  idempotent: boolean;
  logger: Logger;
  /** A batch is cut before its items pass this many bytes, below the core's CDN_API_MAX_BODY_BYTES (1 MiB by default). */
  maxBatchBytes?: number;
};

export type ShipperStatus = {
  depth: number;
  bytes: number;
  drops: number;
  /** Items in batches formed and waiting for a retry (out of the queue, not yet delivered). */
  in_retry: number;
  sent: number;
  rejected: number;
  rejected_batches: number;
  failures: number;
  last_error: string | null;
  last_flush_at: number | null;
};

/** Items sent together, under one idempotency key for every retry. */
export type Batch<T> = { items: T[]; key: string | undefined };
type SendResult = 'done' | 'retry';

const BACKOFF_FIRST_MS = 1000;
const BACKOFF_MAX_MS = 30_000;
const MAX_BATCHES_PER_TICK = 100;
const DEFAULT_MAX_BATCH_BYTES = 512 * 1024;
const REJECTION_LOG_EVERY_MS = 60_000;
/** Statuses that say "not now" rather than "never": the batch is retried. */
const RETRY_STATUSES = new Set([401, 408, 429]);

/** Ships a telemetry queue to a collector endpoint every flushSeconds, with retries and backoff. */
export class TelemetryShipper<T> {
  private readonly pending: Batch<T>[] = [];
  private readonly counters = { sent: 0, rejected: 0, rejected_batches: 0, failures: 0 };
  private lastError: string | null = null;
  private lastFlushAt: number | null = null;
  private consecutiveFailures = 0;
  private lastRejectionLog = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(private readonly options: TelemetryShipperOptions<T>) {}

  /** Starts the flush loop. */
  start(): void {
    this.stopped = false;
    this.schedule(this.options.flushSeconds * 1000);
  }

  /** Stops the loop; a send in flight finishes. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Stops the loop and sends what is queued, ignoring the backoff; gives up at the first failure or after `timeoutMs`. */
  async flush(timeoutMs: number): Promise<void> {
    this.stop();
    const deadline = Date.now() + timeoutMs;
    let timeout: NodeJS.Timeout | undefined;
    const drain = async () => {
      await this.running;
      while (Date.now() < deadline && (this.pending.length > 0 || this.options.queue.depth > 0)) {
        if ((await this.sendNext()) === 'retry') return;
      }
    };
    await Promise.race([drain(), new Promise<void>((resolve) => (timeout = setTimeout(resolve, Math.max(0, timeoutMs))))]);
    clearTimeout(timeout);
  }

  /**
   * Takes out everything not delivered: the batches formed (with their keys, so a batch the core
   * may have counted before its answer was lost is still counted once), then the queue in batches.
   * For the spool a stopping edge writes.
   */
  drain(): Batch<T>[] {
    const batches = this.pending.splice(0);
    for (;;) {
      const { items } = this.options.queue.takeBatch(this.options.batchSize, this.options.maxBatchBytes ?? DEFAULT_MAX_BATCH_BYTES);
      if (items.length === 0) return batches;
      batches.push(this.newBatch(items));
    }
  }

  /** Puts spooled batches back in front of the queue, keys kept. */
  restore(batches: readonly Batch<T>[]): void {
    this.pending.unshift(...batches);
  }

  status(): ShipperStatus {
    const { queue } = this.options;
    const inRetry = this.pending.reduce((sum, batch) => sum + batch.items.length, 0);
    return { depth: queue.depth, bytes: queue.bytes, drops: queue.drops, in_retry: inRetry, ...this.counters, last_error: this.lastError, last_flush_at: this.lastFlushAt };
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.tick().finally(() => {
        this.running = undefined;
        if (!this.stopped) this.schedule(this.nextDelay());
      });
    }, delayMs);
  }

  /** The flush interval, or the backoff (1 s doubling to 30 s) while the core fails. */
  private nextDelay(): number {
    if (this.consecutiveFailures === 0) return this.options.flushSeconds * 1000;
    return Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.min(this.consecutiveFailures - 1, 15));
  }

  /** Sends batches until the items queued at its start are gone (bounded), or a send must be retried. */
  private async tick(): Promise<void> {
    let budget = this.options.queue.depth + this.pending.reduce((sum, batch) => sum + batch.items.length, 0);
    for (let sends = 0; budget > 0 && sends < MAX_BATCHES_PER_TICK && !this.stopped; sends++) {
      const sent = this.pending[0]?.items.length ?? Math.min(this.options.batchSize, this.options.queue.depth);
      if ((await this.sendNext()) === 'retry') return;
      budget -= sent;
    }
  }

  /** Sends the oldest pending batch, or forms one from the queue. */
  private async sendNext(): Promise<SendResult> {
    if (this.pending.length === 0) {
      const { items } = this.options.queue.takeBatch(this.options.batchSize, this.options.maxBatchBytes ?? DEFAULT_MAX_BATCH_BYTES);
      if (items.length === 0) return 'done';
      this.pending.push(this.newBatch(items));
    }
    const batch = this.pending[0];
    let answer: CoreAnswer;
    try {
      answer = await this.options.client.send('POST', this.options.path, this.body(batch));
    } catch (error) {
      return this.failed((error as Error).message);
    }
    this.lastFlushAt = Math.floor(Date.now() / 1000);
    if (answer.status === 200) return this.delivered(batch, answer);
    if (answer.status >= 500 || RETRY_STATUSES.has(answer.status)) return this.failed(`core answered ${describeAnswer(answer)}`);
    if (answer.status === 413 && batch.items.length > 1) return this.split(batch);
    return this.refusedBatch(batch, answer);
  }

  private newBatch(items: T[]): Batch<T> {
    return { items, key: this.options.idempotent ? `${this.options.client.edgeId.slice(0, 91)}-${randomUUID()}` : undefined };
  }

  private body(batch: Batch<T>): Record<string, unknown> {
    return batch.key === undefined ? { [this.options.field]: batch.items } : { idempotency_key: batch.key, [this.options.field]: batch.items };
  }

  private delivered(batch: Batch<T>, answer: CoreAnswer): SendResult {
    this.pending.shift();
    this.recovered();
    this.counters.sent += batch.items.length;
    const rejected = rejectionsOf(answer);
    if (rejected.length > 0) {
      this.counters.rejected += rejected.length;
      if (Date.now() - this.lastRejectionLog >= REJECTION_LOG_EVERY_MS) {
        this.lastRejectionLog = Date.now();
        this.options.logger.warn({ path: this.options.path, rejected: rejected.length, first: rejected[0], total_rejected: this.counters.rejected }, 'the core refused some telemetry items');
      }
    }
    return 'done';
  }

  /** The core refused the batch as too large: its halves are sent instead (nothing of it was counted). */
  private split(batch: Batch<T>): SendResult {
    const half = Math.ceil(batch.items.length / 2);
    this.pending.splice(0, 1, this.newBatch(batch.items.slice(0, half)), this.newBatch(batch.items.slice(half)));
    this.options.logger.info({ path: this.options.path, items: batch.items.length }, 'the core refused a telemetry batch as too large; sending it in halves');
    return 'done';
  }

  private refusedBatch(batch: Batch<T>, answer: CoreAnswer): SendResult {
    this.pending.shift();
    this.recovered();
    this.counters.rejected_batches++;
    this.counters.rejected += batch.items.length;
    this.lastError = `batch of ${batch.items.length} refused: ${describeAnswer(answer)}`;
    this.options.logger.warn({ path: this.options.path, items: batch.items.length, status: answer.status, request_id: answer.requestId, error: this.lastError }, 'the core refused a telemetry batch; dropped it');
    return 'done';
  }

  private failed(message: string): SendResult {
    if (this.consecutiveFailures === 0) this.options.logger.warn({ path: this.options.path, error: message }, 'telemetry push failed; retrying with backoff');
    this.consecutiveFailures++;
    this.counters.failures++;
    this.lastError = oneLine(message);
    return 'retry';
  }

  private recovered(): void {
    if (this.consecutiveFailures > 0) this.options.logger.info({ path: this.options.path, after_failures: this.consecutiveFailures }, 'telemetry push works again');
    this.consecutiveFailures = 0;
  }
}

/** The per-item refusals of a 200 answer (`data.rejected`), tolerating any shape. */
function rejectionsOf(answer: CoreAnswer): unknown[] {
  try {
    const rejected = answer.json<{ data?: { rejected?: unknown } }>().data?.rejected;
    return Array.isArray(rejected) ? rejected : [];
  } catch {
    return [];
  }
}

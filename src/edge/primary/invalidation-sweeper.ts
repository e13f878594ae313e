// The primary's half of invalidation by unsafe methods (src/edge/cache/invalidation.ts):
// removes the invalidated resources' files from the shared disk tier, in batches,
// finding them through the index by resource. The queue is bounded: a flood of
// unsafe requests costs the primary a fixed amount of memory.
import type { DiskCacheIndex } from '../cache/disk-index.js';
import { resourceOf, type PurgeTarget } from '../cache/types.js';

/**
 * A sweep starts this long after the first invalidation of its batch: longer than
 * the workers' telemetry flush (100 ms), so a file written just before the
 * invalidation is in the index when the sweep runs, and a burst of unsafe
 * requests costs one sweep.
 */
const SWEEP_DELAY_MS = 250;
/** Resources queued at most (each once, however often invalidated); past it the oldest are dropped and counted. */
const MAX_QUEUED = 50_000;

export type SweeperOptions = {
  onError: (error: unknown) => void;
  /** Told, once per sweep, how many resources a full queue dropped since the last time. */
  onDropped?: (count: number) => void;
  delayMs?: number;
  maxQueued?: number;
};

export class InvalidationSweeper {
  /** Resources whose files are to go, oldest first, each once. */
  private queued = new Set<string>();
  private running: Promise<void> | undefined;
  private droppedCount = 0;
  private reportedDrops = 0;
  private readonly maxQueued: number;

  constructor(
    private readonly disk: DiskCacheIndex,
    private readonly options: SweeperOptions,
  ) {
    this.maxQueued = options.maxQueued ?? MAX_QUEUED;
  }

  /** Resources waiting for a sweep. */
  get queuedCount(): number {
    return this.queued.size;
  }

  /**
   * Resources dropped from a full queue so far: their files stay until evicted or purged (workers
   * refuse them for a minute after the invalidation, and a refill replaces them).
   */
  get dropped(): number {
    return this.droppedCount;
  }

  /** Queues resources whose disk files are to go; a sweep follows within the delay. */
  add(targets: readonly PurgeTarget[]): void {
    for (const target of targets) {
      const resource = resourceOf(target);
      this.queued.delete(resource);
      this.queued.add(resource);
    }
    for (const resource of this.queued) {
      if (this.queued.size <= this.maxQueued) break;
      this.queued.delete(resource);
      this.droppedCount++;
    }
    this.running ??= this.sweepSoon();
  }

  /** Resolves when no sweep is queued or running (for tests and shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async sweepSoon(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, this.options.delayMs ?? SWEEP_DELAY_MS).unref());
    if (this.droppedCount > this.reportedDrops) this.options.onDropped?.(this.droppedCount - this.reportedDrops);
    this.reportedDrops = this.droppedCount;
    while (this.queued.size) {
      const batch = this.queued;
      this.queued = new Set();
      try {
        await this.disk.removeResources(batch);
      } catch (error) {
        this.options.onError(error);
      }
    }
    this.running = undefined;
  }
}

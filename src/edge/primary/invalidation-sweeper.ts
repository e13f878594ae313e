// The primary's half of invalidation by unsafe methods (src/edge/cache/invalidation.ts):
// removes the invalidated resources' files from the shared disk tier, in batches.
import type { DiskCacheIndex } from '../cache/disk-index.js';
import { invalidationMatcher, type InvalidationTarget } from '../cache/invalidation.js';

/**
 * A sweep starts this long after the first invalidation of its batch: longer than
 * the workers' telemetry flush (100 ms), so a file written just before the
 * invalidation is in the index when the sweep runs, and a burst of unsafe
 * requests costs one pass over the index.
 */
const SWEEP_DELAY_MS = 250;
/** Resources of one batch at most; more wait for the next sweep. */
const BATCH = 10_000;

export class InvalidationSweeper {
  private queued: InvalidationTarget[] = [];
  private running: Promise<void> | undefined;

  constructor(
    private readonly disk: DiskCacheIndex,
    private readonly onError: (error: unknown) => void,
    private readonly delayMs = SWEEP_DELAY_MS,
  ) {}

  /** Queues resources whose disk files are to go; a sweep follows within the delay. */
  add(targets: readonly InvalidationTarget[]): void {
    this.queued.push(...targets);
    this.running ??= this.sweepSoon();
  }

  /** Resolves when no sweep is queued or running (for tests and shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async sweepSoon(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, this.delayMs).unref());
    while (this.queued.length) {
      const batch = this.queued.splice(0, BATCH);
      try {
        await this.disk.removeWhere(invalidationMatcher(batch));
      } catch (error) {
        this.onError(error);
      }
    }
    this.running = undefined;
  }
}

// A worker's invalidations on their way to the primary (invalidation.ts): sent in
// batches, at most BATCH_MS after the first of a batch, one entry per resource, so
// a flood of unsafe requests costs one IPC message per 50 ms, not one per request.
import type { Invalidation } from './invalidation-log.js';
import { resourceOf } from './types.js';

/** How long a batch gathers before it goes (other workers drop their copies this much later, at most). */
const BATCH_MS = 50;
/** A batch this large (resources, or characters of their names) goes at once: a message stays small whatever the rate. */
const BATCH_RESOURCES = 1000;
const BATCH_CHARS = 1024 * 1024;

export class InvalidationBatch {
  private pending = new Map<string, Invalidation>();
  private chars = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly send: (invalidations: Invalidation[]) => void,
    private readonly delayMs = BATCH_MS,
  ) {}

  /** Adds invalidations to the batch (a resource already in it keeps one entry, with the latest time). */
  add(invalidations: readonly Invalidation[]): void {
    for (const invalidation of invalidations) {
      const resource = resourceOf(invalidation);
      const known = this.pending.get(resource);
      if (!known) this.chars += resource.length;
      if (!known || known.at <= invalidation.at) this.pending.set(resource, invalidation);
    }
    if (this.pending.size >= BATCH_RESOURCES || this.chars >= BATCH_CHARS) return this.flush();
    if (this.pending.size > 0) this.timer ??= setTimeout(() => this.flush(), this.delayMs).unref();
  }

  /** Sends what is pending now (on the timer, when full, and before the worker exits). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    this.chars = 0;
    this.send(batch);
  }
}

// A FIFO bounded in items and bytes: telemetry waits here until the agent ships
// it. A push over either bound is dropped and counted; it never blocks or throws,
// so a slow or absent core costs the edge telemetry, never serving.

/** Numbers an edge's /ready shows for one queue. */
export type QueueStatus = { depth: number; bytes: number; drops: number; max_items: number; max_bytes: number };

/** What a shipper takes its batches from: a BoundedQueue, or the usage queue built on one (usage-queue.ts). */
export type TelemetryQueue<T> = Pick<BoundedQueue<T>, 'takeBatch' | 'depth' | 'bytes' | 'drops'>;

/** A FIFO of at most `maxItems` items and `maxBytes` bytes (as the pusher sizes them). */
export class BoundedQueue<T> {
  private items: { item: T; size: number }[] = [];
  /** Index of the oldest item: taking moves it instead of shifting the array. */
  private head = 0;
  private totalBytes = 0;
  private dropped = 0;

  constructor(
    readonly maxItems: number,
    readonly maxBytes: number,
  ) {}

  /** Appends `item` when both bounds allow it; false means it was dropped (and counted), as is an item whose size is not a number. */
  push(item: T, sizeBytes: number): boolean {
    const size = sizeBytes;
    if (!(size >= 0) || this.depth >= this.maxItems || this.totalBytes + size > this.maxBytes) {
      this.dropped++;
      return false;
    }
    this.items.push({ item, size });
    this.totalBytes += size;
    return true;
  }

  /** Removes and returns up to `n` of the oldest items, stopping early once `maxBatchBytes` would be passed (always at least one). */
  takeBatch(n: number, maxBatchBytes = Infinity): { items: T[]; bytes: number } {
    const items: T[] = [];
    let bytes = 0;
    while (items.length < n && this.head < this.items.length) {
      const next = this.items[this.head];
      if (items.length > 0 && bytes + next.size > maxBatchBytes) break;
      items.push(next.item);
      bytes += next.size;
      this.head++;
    }
    this.totalBytes -= bytes;
    this.compact();
    return { items, bytes };
  }

  get depth(): number {
    return this.items.length - this.head;
  }

  get bytes(): number {
    return this.totalBytes;
  }

  get drops(): number {
    return this.dropped;
  }

  status(): QueueStatus {
    return { depth: this.depth, bytes: this.bytes, drops: this.drops, max_items: this.maxItems, max_bytes: this.maxBytes };
  }

  private compact(): void {
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}

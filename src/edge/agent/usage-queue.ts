// The usage queue: events wait in a BoundedQueue until the agent ships them, and an event
// the queue has no room for is folded into its minute's totals instead of being dropped,
// so a full queue costs the path and client of a request, never the request.
import { BoundedQueue } from './bounded-queue.js';
import { OTHER_PATHS, serializedSize, type UsageEvent } from './telemetry-items.js';

/**
 * Usage events up to `maxItems` and `maxBytes`; past them, totals per (domain, status, cache
 * status, country, minute) with the path OTHER_PATHS, at most `maxItems` of them. When those are
 * full too, a request joins its minute's total without a country; only when that one cannot be
 * made either is it lost (counted in `lostRequests`). Totals move into the queue, oldest first,
 * whenever it has room, so they ship before what came after them.
 */
export class UsageQueue {
  private readonly queue: BoundedQueue<UsageEvent>;
  private readonly totals = new Map<string, UsageEvent>();
  private folded = 0;
  private lost = 0;

  constructor(
    readonly maxItems: number,
    maxBytes: number,
  ) {
    this.queue = new BoundedQueue(maxItems, maxBytes);
  }

  /** Queues the event, or adds its requests to their minute's totals; true when it was queued whole. */
  push(event: UsageEvent): boolean {
    if (this.queue.push(event, serializedSize(event))) return true;
    this.fold(event);
    return false;
  }

  /** The oldest items, as BoundedQueue.takeBatch hands them out, with the totals moved in first. */
  takeBatch(n: number, maxBatchBytes = Infinity): { items: UsageEvent[]; bytes: number } {
    this.moveTotalsIntoQueue();
    const batch = this.queue.takeBatch(n, maxBatchBytes);
    this.moveTotalsIntoQueue();
    return batch;
  }

  /** Items waiting: queued events and totals. */
  get depth(): number {
    return this.queue.depth + this.totals.size;
  }

  get bytes(): number {
    return this.queue.bytes;
  }

  /** Requests whose detail was given up (folded into totals), since the start. */
  get drops(): number {
    return this.folded;
  }

  /** Requests that found no room even in the totals, since the start. */
  get lostRequests(): number {
    return this.lost;
  }

  private fold(event: UsageEvent): void {
    const count = event.count ?? 1;
    const minute = Math.floor(event.timestamp / 60) * 60;
    const total = this.totalOf(event, minute, event.client_country ?? null) ?? this.totalOf(event, minute, null);
    if (!total) {
      this.lost += count;
      return;
    }
    this.folded += count;
    total.count = (total.count ?? 0) + count;
    total.bytes += event.bytes;
  }

  private totalOf(event: UsageEvent, minute: number, country: string | null): UsageEvent | undefined {
    const key = `${minute} ${event.status} ${event.cache_status} ${country ?? ''} ${event.domain}`;
    const total = this.totals.get(key);
    if (total || this.totals.size >= this.maxItems) return total;
    const created: UsageEvent = { domain: event.domain, path: OTHER_PATHS, status: event.status, bytes: 0, count: 0, cache_status: event.cache_status, timestamp: minute, client_country: country, client_ip: null };
    this.totals.set(key, created);
    return created;
  }

  private moveTotalsIntoQueue(): void {
    for (const [key, total] of this.totals) {
      if (this.queue.depth >= this.queue.maxItems || !this.queue.push(total, serializedSize(total))) return;
      this.totals.delete(key);
    }
  }
}

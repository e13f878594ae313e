// Sliding-window-counter rate limiting (the approximation Cloudflare and nginx
// users know): a count for the current fixed window and the previous one; the
// rate is previous × (the share of the previous window still inside the sliding
// window) + current. Two numbers per key instead of a log of timestamps.

type Counter = { periodMs: number; window: number; current: number; previous: number; blockedUntil: number };

/** What one counted request learned. `retryAfterSeconds` is set when the key is (now) blocked. */
export type WindowVerdict = { over: boolean; estimate: number; retryAfterSeconds: number };

/** The most keys one limiter keeps by default (one worker); beyond it the least recently seen leave. */
export const DEFAULT_MAX_KEYS = 100_000;

/**
 * Counters per key, bounded: a Map in least-recently-seen order (a touch moves
 * the key to the end), trimmed from the front past `maxKeys`. About 260 bytes a key
 * keyed by address (measured), so some 26 MB at the default bound.
 */
export class SlidingWindowLimiter {
  private readonly counters = new Map<string, Counter>();

  constructor(
    private readonly maxKeys = DEFAULT_MAX_KEYS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Keys currently held. */
  get size(): number {
    return this.counters.size;
  }

  /**
   * Counts one request of `key` against `limit` requests per `periodSeconds` and
   * says whether it is over. When `blockSeconds` is given, going over blocks the key
   * for that long: its requests are then over without being counted.
   */
  hit(key: string, limit: number, periodSeconds: number, blockSeconds?: number): WindowVerdict {
    const now = this.now();
    const counter = this.touch(key, periodSeconds * 1000, now);
    if (counter.blockedUntil > now) return { over: true, estimate: limit, retryAfterSeconds: Math.ceil((counter.blockedUntil - now) / 1000) };
    counter.current++;
    const elapsed = (now - counter.window * counter.periodMs) / counter.periodMs;
    const estimate = counter.previous * (1 - elapsed) + counter.current;
    if (estimate <= limit) return { over: false, estimate, retryAfterSeconds: 0 };
    if (blockSeconds !== undefined) counter.blockedUntil = now + blockSeconds * 1000;
    const retryAfterSeconds = blockSeconds !== undefined ? blockSeconds : Math.max(1, Math.ceil((1 - elapsed) * periodSeconds));
    return { over: true, estimate, retryAfterSeconds };
  }

  private touch(key: string, periodMs: number, now: number): Counter {
    const window = Math.floor(now / periodMs);
    let counter = this.counters.get(key);
    if (counter) {
      this.counters.delete(key);
      if (counter.periodMs !== periodMs) counter = undefined;
    }
    if (!counter) counter = { periodMs, window, current: 0, previous: 0, blockedUntil: 0 };
    else if (window !== counter.window) {
      counter.previous = window === counter.window + 1 ? counter.current : 0;
      counter.current = 0;
      counter.window = window;
    }
    this.counters.set(key, counter);
    if (this.counters.size > this.maxKeys) this.counters.delete(this.counters.keys().next().value as string);
    return counter;
  }
}

// Request coalescing in a worker (docs/edge-cache.md, "Coalescing"): while one
// request fetches a key, the others of that key wait for its outcome instead of
// asking the origin too, but never longer than the lock timeout: the leader's
// fetch is paced by its client, which may be slow on purpose.
/** How a fetch others waited for ended. */
export type Outcome = 'stored' | 'not_stored' | 'failed';
export type Settle = (outcome: Outcome) => void;

/** The settle of a fetch nobody waits for. */
export const NOTHING: Settle = () => {};

/** How long a request waits for another's fetch of its key before it fetches for itself, uncached: nginx's proxy_cache_lock_timeout default. */
export const LOCK_TIMEOUT_MS = 5000;
/** After a key's response was not storable, requests for it stop waiting for each other this long. */
const NO_COALESCE_MS = 10_000;
const NO_COALESCE_KEYS = 10_000;

export class Coalescing {
  private readonly inflight = new Map<string, Promise<Outcome>>();
  private readonly noCoalesceUntil = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    private readonly lockTimeoutMs = LOCK_TIMEOUT_MS,
  ) {}

  /** The fetch of `key` under way that a request may wait for; undefined when none, or when requests of `key` do not wait for each other now. */
  waiting(key: string): Promise<Outcome> | undefined {
    return this.off(key) ? undefined : this.inflight.get(key);
  }

  /** True while a fetch of `key` others may wait for is under way. */
  busy(key: string): boolean {
    return this.inflight.has(key);
  }

  /** The outcome of `fetch`, or 'timeout' once the lock timeout passed first. */
  async wait(fetch: Promise<Outcome>): Promise<Outcome | 'timeout'> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), this.lockTimeoutMs)));
    try {
      return await Promise.race([fetch, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Makes the caller the one fetch of `key` others wait for; the returned function ends the wait (once).
   * NOTHING when a fetch of `key` is already under way or requests of `key` do not wait for each other now.
   */
  claim(key: string): Settle {
    if (this.inflight.has(key) || this.off(key)) return NOTHING;
    let resolve!: (outcome: Outcome) => void;
    const promise = new Promise<Outcome>((done) => (resolve = done));
    this.inflight.set(key, promise);
    let settled = false;
    return (outcome) => {
      if (settled) return;
      settled = true;
      if (this.inflight.get(key) === promise) this.inflight.delete(key);
      resolve(outcome);
    };
  }

  /** True while requests of `key` do not wait for each other (its last response could not be stored). */
  off(key: string): boolean {
    const until = this.noCoalesceUntil.get(key);
    if (until === undefined) return false;
    if (this.now() < until) return true;
    this.noCoalesceUntil.delete(key);
    return false;
  }

  /** An unstorable response would make every waiter fetch again after it: requests of `key` fetch at once for a while. */
  stop(key: string, now: number): void {
    if (this.noCoalesceUntil.size >= NO_COALESCE_KEYS) this.noCoalesceUntil.delete(this.noCoalesceUntil.keys().next().value!);
    this.noCoalesceUntil.delete(key);
    this.noCoalesceUntil.set(key, now + NO_COALESCE_MS);
  }
}

// Retries are bounded per origin pool (a domain's origins) so that a failing
// origin cannot multiply the load on the others: a retry is allowed while the
// retries of the last 10 seconds, this one included, stay within
// max(budget_min_per_second × 10, budget_percent % of the requests of those 10 s).
// The floor keeps retries possible on a quiet site; the percentage scales with traffic.

const WINDOW_SECONDS = 10;

/** The budget fields of an origin's `retries` settings. */
export type RetryBudgetSettings = { budget_percent: number; budget_min_per_second: number };

type Pool = { seconds: Float64Array; requests: Uint32Array; retries: Uint32Array };

export class RetryBudget {
  private readonly pools = new Map<string, Pool>();

  /** Counts one client request sent to `poolId`'s origins at `now` (ms). */
  noteRequest(poolId: string, now: number): void {
    const pool = this.poolOf(poolId);
    pool.requests[this.bucket(pool, now)]++;
  }

  /** True, counting the retry, when `poolId` may retry once more at `now` under `settings`. */
  tryRetry(poolId: string, settings: RetryBudgetSettings, now: number): boolean {
    const pool = this.poolOf(poolId);
    const index = this.bucket(pool, now);
    const { requests, retries } = this.totals(pool, now);
    const allowed = Math.max(settings.budget_min_per_second * WINDOW_SECONDS, (settings.budget_percent / 100) * requests);
    if (retries + 1 > allowed) return false;
    pool.retries[index]++;
    return true;
  }

  /** Forgets the pools of domains no longer in the config. */
  retainOnly(poolIds: { has(id: string): boolean }): void {
    for (const id of this.pools.keys()) if (!poolIds.has(id)) this.pools.delete(id);
  }

  private poolOf(poolId: string): Pool {
    let pool = this.pools.get(poolId);
    if (!pool) {
      pool = { seconds: new Float64Array(WINDOW_SECONDS).fill(-1), requests: new Uint32Array(WINDOW_SECONDS), retries: new Uint32Array(WINDOW_SECONDS) };
      this.pools.set(poolId, pool);
    }
    return pool;
  }

  // The bucket of `now`'s second, emptied when it last held an older second.
  private bucket(pool: Pool, now: number): number {
    const second = Math.floor(now / 1000);
    const index = second % WINDOW_SECONDS;
    if (pool.seconds[index] !== second) {
      pool.seconds[index] = second;
      pool.requests[index] = 0;
      pool.retries[index] = 0;
    }
    return index;
  }

  private totals(pool: Pool, now: number): { requests: number; retries: number } {
    const oldest = Math.floor(now / 1000) - WINDOW_SECONDS;
    let requests = 0;
    let retries = 0;
    for (let i = 0; i < WINDOW_SECONDS; i++) {
      if (pool.seconds[i] <= oldest) continue;
      requests += pool.requests[i];
      retries += pool.retries[i];
    }
    return { requests, retries };
  }
}

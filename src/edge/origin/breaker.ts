// Circuit breakers of one worker, one per origin: closed → open after
// failure_threshold failures within window_seconds → half-open after
// cooldown_seconds, when one trial request may go → closed on its success,
// open again on its failure. An origin without circuit_breaker settings never opens.
import type { SnapshotOrigin } from '../../shared/snapshot.js';

export type BreakerState = 'closed' | 'open' | 'half_open';

// A trial that never reported back (a bug, a lost request) must not keep the
// origin shut for ever: after this long another trial may go.
const TRIAL_TIMEOUT_MS = 60000;

type Breaker = {
  /** Times (ms) of the failures counted in the window, oldest first; at most failure_threshold. */
  failures: number[];
  openedAt: number | null;
  trialSince: number | null;
};

export class OriginBreakers {
  private readonly breakers = new Map<string, Breaker>();

  /** The state of `origin`'s breaker at `now` (ms); an open breaker past its cooldown reads half-open. */
  state(origin: SnapshotOrigin, now: number): BreakerState {
    const breaker = this.breakers.get(origin.id);
    if (!breaker || breaker.openedAt === null || !origin.circuit_breaker) return 'closed';
    return now - breaker.openedAt >= origin.circuit_breaker.cooldown_seconds * 1000 ? 'half_open' : 'open';
  }

  /** True when a request to `origin` would be refused now: open, or half-open with its trial under way. */
  isOpen(origin: SnapshotOrigin, now: number): boolean {
    const state = this.state(origin, now);
    if (state === 'closed') return false;
    if (state === 'open') return true;
    const trialSince = this.breakers.get(origin.id)?.trialSince ?? null;
    return trialSince !== null && now - trialSince < TRIAL_TIMEOUT_MS;
  }

  /** Claims the right to send one request to `origin`: always when closed, the single trial when half-open, never when open. */
  tryAcquire(origin: SnapshotOrigin, now: number): boolean {
    if (this.isOpen(origin, now)) return false;
    if (this.state(origin, now) === 'half_open') this.breakers.get(origin.id)!.trialSince = now;
    return true;
  }

  /** Records the outcome of a request that tryAcquire let through. */
  record(origin: SnapshotOrigin, success: boolean, now: number): void {
    const settings = origin.circuit_breaker;
    if (!settings) return;
    const breaker = this.breakerOf(origin.id);
    const wasTrial = breaker.openedAt !== null;
    if (success) {
      if (wasTrial) this.breakers.delete(origin.id);
      return;
    }
    if (wasTrial) return this.open(breaker, now);
    const since = now - settings.window_seconds * 1000;
    const failures = breaker.failures.filter((at) => at > since);
    failures.push(now);
    breaker.failures = failures.slice(-settings.failure_threshold);
    if (breaker.failures.length >= settings.failure_threshold) this.open(breaker, now);
  }

  /** Gives back a claim that produced no verdict on the origin (the request never reached it). */
  release(origin: SnapshotOrigin): void {
    const breaker = this.breakers.get(origin.id);
    if (breaker) breaker.trialSince = null;
  }

  /** Forgets the breakers of origins no longer in the config. */
  retainOnly(originIds: ReadonlySet<string>): void {
    for (const id of this.breakers.keys()) if (!originIds.has(id)) this.breakers.delete(id);
  }

  private breakerOf(id: string): Breaker {
    let breaker = this.breakers.get(id);
    if (!breaker) {
      breaker = { failures: [], openedAt: null, trialSince: null };
      this.breakers.set(id, breaker);
    }
    return breaker;
  }

  private open(breaker: Breaker, now: number): void {
    breaker.openedAt = now;
    breaker.trialSince = null;
    breaker.failures = [];
  }
}

// Circuit breakers of one worker, one per origin: closed → open after
// failure_threshold failures within window_seconds → half-open after
// cooldown_seconds, when one trial request may go → closed on its success,
// open again on its failure. An origin without circuit_breaker settings never opens.
// A breaker belongs to the origin's address as well as its id: failures against one address
// (a config that pointed the origin at a dead port, then was rolled back, docs/rollout.md)
// never shut another.
import type { SnapshotOrigin } from '../../shared/snapshot.js';

export type BreakerState = 'closed' | 'open' | 'half_open';

// A trial that never reported back (a bug, a lost request) must not keep the
// origin shut for ever: after this long another trial may go.
const TRIAL_TIMEOUT_MS = 60000;

// Keys by origin object: an origin of the active snapshot is asked on every request sent to it.
const keys = new WeakMap<SnapshotOrigin, string>();

/** The breaker's key: the origin's id and the address its requests go to. */
function keyOf(origin: SnapshotOrigin): string {
  let key = keys.get(origin);
  if (key === undefined) {
    key = `${origin.id} ${origin.scheme}://${origin.host}:${origin.port}`;
    keys.set(origin, key);
  }
  return key;
}

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
    const breaker = this.breakers.get(keyOf(origin));
    if (!breaker || breaker.openedAt === null || !origin.circuit_breaker) return 'closed';
    return now - breaker.openedAt >= origin.circuit_breaker.cooldown_seconds * 1000 ? 'half_open' : 'open';
  }

  /** True when a request to `origin` would be refused now: open, or half-open with its trial under way. */
  isOpen(origin: SnapshotOrigin, now: number): boolean {
    const state = this.state(origin, now);
    if (state === 'closed') return false;
    if (state === 'open') return true;
    const trialSince = this.breakers.get(keyOf(origin))?.trialSince ?? null;
    return trialSince !== null && now - trialSince < TRIAL_TIMEOUT_MS;
  }

  /** Claims the right to send one request to `origin`: always when closed, the single trial when half-open, never when open. */
  tryAcquire(origin: SnapshotOrigin, now: number): boolean {
    if (this.isOpen(origin, now)) return false;
    if (this.state(origin, now) === 'half_open') this.breakers.get(keyOf(origin))!.trialSince = now;
    return true;
  }

  /** Records the outcome of a request that tryAcquire let through. */
  record(origin: SnapshotOrigin, success: boolean, now: number): void {
    const settings = origin.circuit_breaker;
    if (!settings) return;
    const breaker = this.breakerOf(keyOf(origin));
    const wasTrial = breaker.openedAt !== null;
    if (success) {
      if (wasTrial) this.breakers.delete(keyOf(origin));
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
    const breaker = this.breakers.get(keyOf(origin));
    if (breaker) breaker.trialSince = null;
  }

  /** Forgets the breakers of origins no longer in the config. */
  retainOnly(originIds: { has(id: string): boolean }): void {
    for (const key of this.breakers.keys()) if (!originIds.has(key.slice(0, key.indexOf(' ')))) this.breakers.delete(key);
  }

  private breakerOf(key: string): Breaker {
    let breaker = this.breakers.get(key);
    if (!breaker) {
      breaker = { failures: [], openedAt: null, trialSince: null };
      this.breakers.set(key, breaker);
    }
    return breaker;
  }

  private open(breaker: Breaker, now: number): void {
    breaker.openedAt = now;
    breaker.trialSince = null;
    breaker.failures = [];
  }
}

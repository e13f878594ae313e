// One worker's own view of origin health, from its proxied requests (passive)
// and the probe results the primary broadcasts. It uses the core's rule over the
// same two-minute window: unhealthy when half or more of at least three
// observations failed, degraded from 10 %, healthy below, unknown with fewer
// than three. A local verdict beats the snapshot's health_status: the core's
// status reaches the edge only after ingestion and a publish, while the local
// window ends now, so whenever the local view has a verdict it is the fresher one.
import type { SnapshotOrigin } from '../../shared/snapshot.js';
import { toObservation, type OriginObservation, type OriginOutcome } from './observation.js';

export type OriginHealthStatus = 'healthy' | 'degraded' | 'unhealthy' | 'unknown';

const WINDOW_SECONDS = 120;
const MIN_OBSERVATIONS = 3;
const UNHEALTHY_RATIO = 0.5;
const DEGRADED_RATIO = 0.1;
// Passive observations sent to the collector per origin and second from one
// worker. The sampling ignores the outcome on purpose: the core judges health
// by the failure ratio, and sending every failure but few successes would make
// a busy, mostly working origin look unhealthy to every edge.
const PASSIVE_REPORTS_PER_SECOND = 1;

/**
 * A ring of one bucket per second. Every bucket holding counts is of a second within the
 * WINDOW_SECONDS ending at `latest` (the newest second counted): moving `latest` on empties the
 * buckets it passes. So `successes` and `failures` (the sums of every bucket) are the window's
 * totals whenever a verdict is asked for in the second `latest`, which is how a request that
 * follows others in the same second gets it without adding up 120 buckets. A verdict asked for a
 * time before `latest` (the clock stepped back) no longer sees the seconds the window let go of.
 */
type Window = {
  seconds: Float64Array;
  bucketSuccesses: Uint32Array;
  bucketFailures: Uint32Array;
  latest: number;
  successes: number;
  failures: number;
  reportSecond: number;
  reports: number;
};

export type OriginHealthViewOptions = {
  /** Receives the sampled passive observations (for the telemetry queue). */
  onObservation?: (observation: OriginObservation) => void;
};

export class OriginHealthView {
  private readonly windows = new Map<string, Window>();
  private readonly onObservation: (observation: OriginObservation) => void;

  constructor(options: OriginHealthViewOptions = {}) {
    this.onObservation = options.onObservation ?? (() => {});
  }

  /** Counts the outcome of a proxied request to `originId` and reports a sample of them. */
  recordPassive(originId: string, outcome: OriginOutcome, now: number): void {
    const window = this.windowOf(originId);
    this.count(window, outcome.success, now);
    const second = Math.floor(now / 1000);
    if (window.reportSecond !== second) {
      window.reportSecond = second;
      window.reports = 0;
    }
    if (window.reports >= PASSIVE_REPORTS_PER_SECOND) return;
    window.reports++;
    this.onObservation(toObservation(originId, 'passive', outcome, now));
  }

  /** Counts a probe result broadcast by the primary (its timestamp places it in the window). */
  applyProbe(observation: OriginObservation, now: number = Date.now()): void {
    const at = Math.min(observation.timestamp * 1000, now);
    if (now - at >= WINDOW_SECONDS * 1000) return;
    this.count(this.windowOf(observation.origin_id), observation.success, at, now);
  }

  /** This worker's verdict on `originId` from its window ending at `now`. */
  localStatus(originId: string, now: number): OriginHealthStatus {
    const window = this.windows.get(originId);
    if (!window) return 'unknown';
    const second = Math.floor(now / 1000);
    let { successes, failures } = window;
    if (second !== window.latest) {
      const oldest = second - WINDOW_SECONDS;
      successes = 0;
      failures = 0;
      for (let i = 0; i < WINDOW_SECONDS; i++) {
        if (window.seconds[i] <= oldest) continue;
        successes += window.bucketSuccesses[i];
        failures += window.bucketFailures[i];
      }
    }
    const total = successes + failures;
    if (total < MIN_OBSERVATIONS) return 'unknown';
    const ratio = failures / total;
    if (ratio >= UNHEALTHY_RATIO) return 'unhealthy';
    return ratio >= DEGRADED_RATIO ? 'degraded' : 'healthy';
  }

  /** The health that routing uses: the local verdict when there is one, else the core's. */
  status(origin: SnapshotOrigin, now: number): OriginHealthStatus {
    const local = this.localStatus(origin.id, now);
    if (local !== 'unknown') return local;
    const core = origin.health_status;
    return core === 'healthy' || core === 'degraded' || core === 'unhealthy' ? core : 'unknown';
  }

  /** True unless `origin` is unhealthy (degraded and unknown origins take traffic). */
  isUsable(origin: SnapshotOrigin, now: number = Date.now()): boolean {
    return this.status(origin, now) !== 'unhealthy';
  }

  /** Forgets origins no longer in the config. */
  retainOnly(originIds: { has(id: string): boolean }): void {
    for (const id of this.windows.keys()) if (!originIds.has(id)) this.windows.delete(id);
  }

  private windowOf(originId: string): Window {
    let window = this.windows.get(originId);
    if (!window) {
      window = {
        seconds: new Float64Array(WINDOW_SECONDS).fill(-1),
        bucketSuccesses: new Uint32Array(WINDOW_SECONDS),
        bucketFailures: new Uint32Array(WINDOW_SECONDS),
        latest: -1,
        successes: 0,
        failures: 0,
        reportSecond: -1,
        reports: 0,
      };
      this.windows.set(originId, window);
    }
    return window;
  }

  // Adds one outcome to the bucket of `at`'s second, moving the window on first when that second is the newest.
  private count(window: Window, success: boolean, at: number, now: number = at): void {
    const second = Math.floor(at / 1000);
    if (second <= Math.floor(now / 1000) - WINDOW_SECONDS) return;
    if (second > window.latest) advance(window, second);
    else if (second <= window.latest - WINDOW_SECONDS) return;
    // Inside the window a bucket holds its own second or nothing (advance emptied the ones it passed).
    const index = second % WINDOW_SECONDS;
    window.seconds[index] = second;
    if (success) {
      window.bucketSuccesses[index]++;
      window.successes++;
    } else {
      window.bucketFailures[index]++;
      window.failures++;
    }
  }
}

// Empties the buckets of the seconds after `window.latest` up to `second` (at most the whole ring),
// whose counts, if any, are of seconds a window ending at `second` no longer holds.
function advance(window: Window, second: number): void {
  const from = Math.max(window.latest + 1, second - WINDOW_SECONDS + 1);
  for (let passed = from; passed <= second; passed++) empty(window, passed % WINDOW_SECONDS);
  window.latest = second;
}

function empty(window: Window, index: number): void {
  window.successes -= window.bucketSuccesses[index];
  window.failures -= window.bucketFailures[index];
  window.bucketSuccesses[index] = 0;
  window.bucketFailures[index] = 0;
  window.seconds[index] = -1;
}

// Requests served per config version, for the canary rollout (docs/rollout.md): each worker counts
// its requests by the version that served them and sends the counts with its telemetry; the agent
// adds them up here and reports the most recent versions in every heartbeat.

/** What an edge reports per version: requests, those answered 5xx, those that met an origin failure. */
export type VersionCount = { version: number; requests: number; status_5xx: number; origin_errors: number };

/** Versions reported (and kept): the heartbeat schema's bound. Older ones are forgotten. */
export const MAX_REPORTED_VERSIONS = 4;

/** Counts per version since the edge started, for the MAX_REPORTED_VERSIONS newest versions. */
export class VersionCounters {
  private readonly counts = new Map<number, VersionCount>();

  /** Counts one request served with `version` (on every request: no allocation once the version is known). */
  count(version: number, status: number, originFailed: boolean): void {
    const total = this.totalOf(version);
    if (!total) return;
    total.requests++;
    if (status >= 500 && status <= 599) total.status_5xx++;
    if (originFailed) total.origin_errors++;
  }

  /** Adds counts (a worker's since its last telemetry message). */
  add(count: VersionCount): void {
    const total = this.totalOf(count.version);
    if (!total) return;
    total.requests += count.requests;
    total.status_5xx += count.status_5xx;
    total.origin_errors += count.origin_errors;
  }

  // The running total of `version`, made when it is new, when the oldest kept version is then forgotten.
  private totalOf(version: number): VersionCount | undefined {
    if (!Number.isInteger(version) || version < 1) return undefined;
    let total = this.counts.get(version);
    if (!total) {
      total = { version, requests: 0, status_5xx: 0, origin_errors: 0 };
      this.counts.set(version, total);
      if (this.counts.size > MAX_REPORTED_VERSIONS) this.counts.delete(Math.min(...this.counts.keys()));
    }
    return total;
  }

  /** The counts, newest version first; `take` empties them (a worker hands its share over). */
  list(): VersionCount[] {
    return [...this.counts.values()].sort((a, b) => b.version - a.version).map((count) => ({ ...count }));
  }

  take(): VersionCount[] {
    const counts = this.list();
    this.counts.clear();
    return counts;
  }
}

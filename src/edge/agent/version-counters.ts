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

  /** Counts one request served with `version`. */
  count(version: number, status: number, originFailed: boolean): void {
    this.add({ version, requests: 1, status_5xx: status >= 500 && status <= 599 ? 1 : 0, origin_errors: originFailed ? 1 : 0 });
  }

  /** Adds counts (a worker's since its last telemetry message). */
  add(count: VersionCount): void {
    if (!Number.isInteger(count.version) || count.version < 1) return;
    const total = this.counts.get(count.version) ?? { version: count.version, requests: 0, status_5xx: 0, origin_errors: 0 };
    total.requests += count.requests;
    total.status_5xx += count.status_5xx;
    total.origin_errors += count.origin_errors;
    this.counts.set(count.version, total);
    for (const old of [...this.counts.keys()].sort((a, b) => b - a).slice(MAX_REPORTED_VERSIONS)) this.counts.delete(old);
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

// The resources a worker invalidated lately (unsafe methods, RFC 9111 §4.4), with
// when: until the primary has swept the disk tier, a disk object of such a
// resource stored before its invalidation is not served or copied to memory.
import { resourceOf, type CacheEntry, type PurgeTarget } from './types.js';

/** How long an invalidation is remembered: far longer than a sweep of the disk index takes. */
const KEPT_MS = 60_000;
/** At most this many resources are remembered (the oldest go first). */
const KEPT_RESOURCES = 10_000;

export class InvalidationLog {
  /** resourceOf(target) → when it was last invalidated (ms); oldest first. */
  private readonly recent = new Map<string, number>();

  /** Records that the resources of `targets` were invalidated at `now`. */
  record(targets: readonly PurgeTarget[], now: number): void {
    for (const target of targets) {
      const resource = resourceOf(target);
      this.recent.delete(resource);
      this.recent.set(resource, now);
    }
    for (const [resource, at] of this.recent) {
      if (this.recent.size <= KEPT_RESOURCES && at > now - KEPT_MS) break;
      this.recent.delete(resource);
    }
  }

  /** True when `entry` was stored before its resource was last invalidated (within the last minute). */
  covers(entry: CacheEntry, now: number): boolean {
    if (this.recent.size === 0) return false;
    const at = this.recent.get(resourceOf(entry));
    return at !== undefined && at > now - KEPT_MS && entry.storedAt <= at;
  }
}

// The resources a worker invalidated lately (unsafe methods, RFC 9111 §4.4), with
// when. Two uses: until the primary has swept the disk tier, a disk object of such
// a resource fetched before its invalidation is not served or copied to memory;
// and a fill whose fetch began before an invalidation of its resource does not
// store what it fetched (it may be the old object). Memory is bounded whatever the
// rate of invalidations: the exact records are bounded in number, and a fill older
// than the oldest record dropped early falls back to a fixed table of the latest
// invalidation time per hash slot, which can only say "maybe" (not stored), never
// miss an invalidation.
import { resourceOf, type CacheEntry, type PurgeTarget } from './types.js';

/** One invalidated resource and when (wall-clock ms, the clock every worker of the machine shares). */
export type Invalidation = PurgeTarget & { at: number };

/** How long an invalidation is remembered exactly: far longer than a sweep of the disk index takes. */
const KEPT_MS = 60_000;
/** At most this many resources are remembered exactly (the oldest go first). */
const KEPT_RESOURCES = 10_000;
/** Slots of the fallback table (8 bytes each: 512 KiB). */
const SLOTS = 65_536;

// FNV-1a over the UTF-16 code units: a cheap, well-spread slot for a resource.
function slotOf(resource: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < resource.length; index++) {
    hash ^= resource.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % SLOTS;
}

export class InvalidationLog {
  /** resourceOf(target) → when it was last invalidated (ms); roughly oldest first. */
  private readonly recent = new Map<string, number>();
  /** The latest invalidation time among the records dropped so far. */
  private forgotten = -Infinity;
  /** The latest invalidation time of any resource of each slot. */
  private readonly slots = new Float64Array(SLOTS).fill(-Infinity);

  /** Resources remembered exactly. */
  get size(): number {
    return this.recent.size;
  }

  /** Records invalidations (their own times: another worker's come over IPC a little later). */
  record(invalidations: readonly Invalidation[], now: number): void {
    for (const invalidation of invalidations) {
      const resource = resourceOf(invalidation);
      const at = Math.max(invalidation.at, this.recent.get(resource) ?? -Infinity);
      this.recent.delete(resource);
      this.recent.set(resource, at);
      const slot = slotOf(resource);
      if (at > this.slots[slot]) this.slots[slot] = at;
    }
    for (const [resource, at] of this.recent) {
      if (this.recent.size <= KEPT_RESOURCES && at > now - KEPT_MS) break;
      this.recent.delete(resource);
      if (at > this.forgotten) this.forgotten = at;
    }
  }

  /** True when `entry`, read from the disk tier, was fetched before its resource was last invalidated (within the last minute). */
  covers(entry: CacheEntry, now: number): boolean {
    if (this.recent.size === 0) return false;
    const at = this.recent.get(resourceOf(entry));
    return at !== undefined && at > now - KEPT_MS && entry.fetchedAt <= at;
  }

  /** True when `target`'s resource was (or may have been) invalidated at or after `fetchedAt`, when the fetch of an object about to be stored began. */
  overtook(target: PurgeTarget, fetchedAt: number): boolean {
    const resource = resourceOf(target);
    const at = this.recent.get(resource);
    if (at !== undefined && at >= fetchedAt) return true;
    // Nothing as recent as the fetch was dropped: the records are exact for it.
    if (fetchedAt > this.forgotten) return false;
    return this.slots[slotOf(resource)] >= fetchedAt;
  }
}

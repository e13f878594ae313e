// The per-worker memory tier: an LRU bounded by bytes. A Map keeps insertion
// order, so re-inserting on a hit makes its first key the least recently used.
// A second map finds every key of one resource (domain, host, path) at once,
// for invalidations by unsafe methods (invalidation.ts), without a full scan.
import { entrySize, resourceOf, type CacheEntry } from './types.js';

type Slot = { entry: CacheEntry; size: number; touched: number };

/** Objects above 1/16 of the tier go to the disk tier only, so one object never flushes the tier. */
const LARGEST_SHARE = 16;

export class MemoryTier {
  /** The largest entry (entrySize) this tier takes. */
  readonly maxObjectBytes: number;
  private readonly slots = new Map<string, Slot>();
  /** resourceOf(entry) → the keys of that resource's entries. */
  private readonly byResource = new Map<string, Set<string>>();
  private used = 0;
  private clock = 0;
  /** The slot at the young end of `slots` (the last stored or moved), which a hit never needs to move. */
  private youngest: Slot | undefined;
  private evicted = 0;

  constructor(readonly maxBytes: number) {
    this.maxObjectBytes = Math.floor(maxBytes / LARGEST_SHARE);
  }

  /** Bytes held. */
  get bytes(): number {
    return this.used;
  }

  get count(): number {
    return this.slots.size;
  }

  /** Entries removed to make room since the tier was made (purges and invalidations are not evictions). */
  get evictions(): number {
    return this.evicted;
  }

  /**
   * The entry under `key`, now among the most recently used; undefined when absent.
   * An entry is moved to the young end only when a quarter of the tier has been
   * touched since it last was, and is not the youngest already: a hot object costs
   * no Map delete and insert per hit (those were 5% of a worker's time serving one
   * object), also in a tier of fewer than four entries, and the order stays LRU to
   * within that quarter.
   */
  get(key: string): CacheEntry | undefined {
    const slot = this.slots.get(key);
    if (slot === undefined) return undefined;
    const now = ++this.clock;
    if (slot !== this.youngest && now - slot.touched > this.slots.size >> 2) {
      slot.touched = now;
      this.slots.delete(key);
      this.slots.set(key, slot);
      this.youngest = slot;
    }
    return slot.entry;
  }

  /** Stores `entry` under its key, evicting the least recently used until it fits; false (and nothing stored) when it is too large for this tier or its body is not in memory. */
  set(entry: CacheEntry): boolean {
    const size = entrySize(entry);
    this.delete(entry.key);
    if (size > this.maxObjectBytes || !Buffer.isBuffer(entry.body)) return false;
    const slot: Slot = { entry, size, touched: ++this.clock };
    this.slots.set(entry.key, slot);
    this.youngest = slot;
    this.used += size;
    const resource = resourceOf(entry);
    const keys = this.byResource.get(resource);
    if (keys) keys.add(entry.key);
    else this.byResource.set(resource, new Set([entry.key]));
    for (const [key, slot] of this.slots) {
      if (this.used <= this.maxBytes) break;
      this.remove(key, slot);
      this.evicted++;
    }
    return true;
  }

  /** Removes the entry under `key`; true when there was one. */
  delete(key: string): boolean {
    const slot = this.slots.get(key);
    if (slot === undefined) return false;
    this.remove(key, slot);
    return true;
  }

  /** Removes every entry `predicate` selects (purges); returns how many. */
  deleteWhere(predicate: (entry: CacheEntry) => boolean): number {
    let removed = 0;
    for (const [key, slot] of this.slots) {
      if (!predicate(slot.entry)) continue;
      this.remove(key, slot);
      removed++;
    }
    return removed;
  }

  /** Removes every entry of one resource (`resourceOf`): all its queries, variants and rule-added key parts; returns how many. */
  deleteResource(resource: string): number {
    const keys = this.byResource.get(resource);
    if (!keys) return 0;
    let removed = 0;
    for (const key of [...keys]) if (this.delete(key)) removed++;
    return removed;
  }

  private remove(key: string, slot: Slot): void {
    this.slots.delete(key);
    if (slot === this.youngest) this.youngest = undefined;
    this.used -= slot.size;
    const resource = resourceOf(slot.entry);
    const keys = this.byResource.get(resource);
    if (keys?.delete(key) && keys.size === 0) this.byResource.delete(resource);
  }
}

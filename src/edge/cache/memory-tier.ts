// The per-worker memory tier: an LRU bounded by bytes. A Map keeps insertion
// order, so re-inserting on a hit makes its first key the least recently used.
// A second map finds every key of one resource (domain, host, path) at once,
// for invalidations by unsafe methods (invalidation.ts), without a full scan.
// A third finds an object by its key's parts (find), as a request has them.
import { Buffer } from 'node:buffer';
import { partsOfKey, type KeyParts } from './cache-key.js';
import { entrySize, resourceOf, type CacheEntry } from './types.js';

/** `parts`: its key's (undefined for a key not made of parts by keyText, found by get only). */
type Slot = { entry: CacheEntry; size: number; touched: number; parts: KeyParts | undefined };
/** Host, then path, then the rest of the key: the slots of those parts (one per domain id and scheme, so a few at most). */
type PartsIndex = Map<string, Map<string, Map<string, Slot[]>>>;

/** Objects above 1/16 of the tier go to the disk tier only, so one object never flushes the tier. */
const LARGEST_SHARE = 16;

export class MemoryTier {
  /** The largest entry (entrySize) this tier takes. */
  readonly maxObjectBytes: number;
  private readonly slots = new Map<string, Slot>();
  /** resourceOf(entry) → the keys of that resource's entries. */
  private readonly byResource = new Map<string, Set<string>>();
  private readonly byParts: PartsIndex = new Map();
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
    return slot === undefined ? undefined : this.touched(slot);
  }

  /**
   * The entry under the key these parts make (keyText), as get does: a cache lookup on every
   * request, which would otherwise make the whole key (some 70 characters) and hash and compare
   * it; the host, path and rest a request has are looked up as they are.
   */
  find(parts: KeyParts): CacheEntry | undefined {
    const slots = this.byParts.get(parts.host)?.get(parts.path)?.get(parts.rest);
    if (slots === undefined) return undefined;
    for (const slot of slots) if (slot.parts!.scheme === parts.scheme && slot.parts!.domainId === parts.domainId) return this.touched(slot);
    return undefined;
  }

  // The slot's entry, the slot now among the most recently used (see get).
  private touched(slot: Slot): CacheEntry {
    const now = ++this.clock;
    if (slot !== this.youngest && now - slot.touched > this.slots.size >> 2) {
      slot.touched = now;
      const key = slot.entry.key;
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
    const slot: Slot = { entry, size, touched: ++this.clock, parts: partsOf(entry) };
    this.slots.set(entry.key, slot);
    if (slot.parts) fileByParts(this.byParts, slot.parts, slot);
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
    if (slot.parts) unfileByParts(this.byParts, slot.parts, slot);
  }
}

/**
 * The parts of the entry's key, each the entry's own string where it holds the same text. A part
 * cut from the key is a slice of it, which V8 compares with a request's string only in a call into
 * its runtime (hundreds of instructions a compare, twice a lookup); the entry's domain id, host and
 * path are the request's own strings, which it compares in place.
 */
function partsOf(entry: CacheEntry): KeyParts | undefined {
  const parts = partsOfKey(entry.key);
  if (!parts) return undefined;
  const { domainId, host, path } = entry;
  return { domainId: parts.domainId === domainId ? domainId : parts.domainId, scheme: parts.scheme, host: parts.host === host ? host : parts.host, path: parts.path === path ? path : parts.path, rest: parts.rest };
}

function fileByParts(index: PartsIndex, parts: KeyParts, slot: Slot): void {
  let paths = index.get(parts.host);
  if (!paths) index.set(parts.host, (paths = new Map()));
  let rests = paths.get(parts.path);
  if (!rests) paths.set(parts.path, (rests = new Map()));
  const slots = rests.get(parts.rest);
  if (slots) slots.push(slot);
  else rests.set(parts.rest, [slot]);
}

// Takes the slot out, and every map it leaves empty.
function unfileByParts(index: PartsIndex, parts: KeyParts, slot: Slot): void {
  const paths = index.get(parts.host);
  const rests = paths?.get(parts.path);
  const slots = rests?.get(parts.rest);
  if (!paths || !rests || !slots) return;
  const at = slots.indexOf(slot);
  if (at !== -1) slots.splice(at, 1);
  if (slots.length > 0) return;
  rests.delete(parts.rest);
  if (rests.size > 0) return;
  paths.delete(parts.path);
  if (paths.size === 0) index.delete(parts.host);
}

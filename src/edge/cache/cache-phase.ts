// The cache request phase: answers from the memory tier synchronously on a
// fresh hit; otherwise looks at the disk tier, serves stale objects, and fetches
// from the origin with one fetch per key at a time, storing what may be stored.
// Handled: ctx.response is set (a cached object, or the origin's response on a
// miss). Not handled (false): the request bypasses the cache and the origin
// phase proxies it. Behaviour: docs/edge-cache.md.
import type { CacheStatus, RequestContext } from '../pipeline/context.js';
import type { Phase } from '../pipeline/phase.js';
import type { EdgeResponse } from '../pipeline/response.js';
import { firstMatch } from '../../shared/rules/rule-set.js';
import { parseCacheControl } from './cache-control.js';
import { cacheKey, variantKey } from './cache-key.js';
import { deliver } from './deliver.js';
import type { DiskTier } from './disk-tier.js';
import { bypassReason, decideFreshness, type Freshness } from './freshness.js';
import { InvalidationLog } from './invalidation-log.js';
import type { MemoryTier } from './memory-tier.js';
import { purgedSinceStored } from './purge.js';
import { PurgeLog } from './purge-log.js';
import { updatedHeaders, validatorsOf } from './revalidation.js';
import { entriesFor, storedHeaders } from './stored-entry.js';
import { collectBody, discardBody, teeForStore } from './tee.js';
import type { CacheEntry, CacheRule } from './types.js';

/** How the cache asks the origin: `detached` for a background refresh, `conditional` validators of the stored object. */
export type OriginFetchOptions = { detached?: boolean; conditional?: Record<string, string> };

export type CachePhaseOptions = {
  memory: MemoryTier;
  /** The shared disk tier; null when CDN_EDGE_CACHE_DISK_BYTES is 0. */
  disk: DiskTier | null;
  /**
   * Fetches the request from the origin (the origin module); any rejection counts as an origin failure.
   * `detached`: a background refresh, which must go on when the client that triggered it leaves.
   */
  fetchOrigin: (ctx: RequestContext, options?: OriginFetchOptions) => Promise<EdgeResponse>;
  /** Called after each disk write, to tell the primary's DiskCacheIndex. */
  onStored: (file: string, size: number) => void;
  now?: () => number;
  /** CDN_EDGE_CACHE_MAX_OBJECT_BYTES. */
  maxObjectBytes?: number;
  /** Failures off the request path (disk, background refresh). */
  onError?: (error: unknown) => void;
  /** The purges this worker applied (applyPurges records them): a fill they overtook is not stored. */
  purges?: PurgeLog;
  /** The resources invalidated lately (invalidation.ts): older disk objects of them are not served. */
  invalidations?: InvalidationLog;
};

/** How a fetch others waited for ended. */
type Outcome = 'stored' | 'not_stored' | 'failed';
type Settle = (outcome: Outcome) => void;

const DEFAULT_MAX_OBJECT_BYTES = 100 * 1024 * 1024;
/** After a key's response was not storable, requests for it stop waiting for each other this long. */
const NO_COALESCE_MS = 10_000;
const NO_COALESCE_KEYS = 10_000;
const NOTHING: Settle = () => {};

// Only a plain GET may fill the cache: HEAD has no body, Range a part, and conditionals may get a 304.
function mayFill(ctx: RequestContext): boolean {
  const headers = ctx.req.headers;
  return (
    ctx.method === 'GET' &&
    headers.range === undefined &&
    headers['if-none-match'] === undefined &&
    headers['if-modified-since'] === undefined &&
    headers['if-match'] === undefined &&
    headers['if-unmodified-since'] === undefined
  );
}

class CachePhase implements Phase {
  readonly name = 'cache';
  private readonly memory: MemoryTier;
  private readonly disk: DiskTier | null;
  private readonly now: () => number;
  private readonly limit: number;
  private readonly purges: PurgeLog;
  private readonly invalidations: InvalidationLog;
  private readonly inflight = new Map<string, Promise<Outcome>>();
  private readonly noCoalesceUntil = new Map<string, number>();

  constructor(private readonly options: CachePhaseOptions) {
    this.memory = options.memory;
    this.disk = options.disk;
    this.now = options.now ?? Date.now;
    this.purges = options.purges ?? new PurgeLog();
    this.invalidations = options.invalidations ?? new InvalidationLog();
    this.limit = Math.min(options.maxObjectBytes ?? DEFAULT_MAX_OBJECT_BYTES, Math.max(this.memory.maxObjectBytes, this.disk?.maxBytes ?? 0));
  }

  run(ctx: RequestContext): boolean | Promise<boolean> {
    const domain = ctx.domain;
    if (!domain) return false;
    const rule = ctx.facts ? (firstMatch(domain.rules['cache-rules'], ctx.facts)?.rule as CacheRule | undefined) : undefined;
    if (bypassReason(domain.cache, rule, ctx.page, ctx.method) !== undefined) {
      ctx.cacheStatus = 'BYPASS';
      return false;
    }
    const key = cacheKey(ctx, rule);
    const now = this.now();
    const entry = this.fromMemory(key, ctx);
    if (entry !== undefined && now < entry.freshUntil) {
      ctx.response = deliver(ctx, entry, 'HIT', now);
      return true;
    }
    return this.slowPath(ctx, rule, key);
  }

  private fromMemory(key: string, ctx: RequestContext): CacheEntry | undefined {
    const entry = this.memory.get(key);
    if (entry === undefined || !entry.marker) return entry;
    return this.memory.get(variantKey(key, entry.vary, ctx.req.headers));
  }

  private async slowPath(ctx: RequestContext, rule: CacheRule | undefined, key: string): Promise<boolean> {
    // A key whose last answer could not be stored (no-store, private…) is not looked for on disk: it is not there.
    if (this.coalescingOff(key)) return this.fetch(ctx, rule, key, undefined, true);
    const entry = await this.lookup(key, ctx);
    const now = this.now();
    if (entry && now < entry.freshUntil) return this.serve(ctx, entry, 'HIT', now);
    if (entry && now < entry.swrUntil) {
      this.refreshInBackground(ctx, rule, key);
      return this.serve(ctx, entry, 'STALE', now);
    }
    return this.fetch(ctx, rule, key, entry, true);
  }

  private serve(ctx: RequestContext, entry: CacheEntry, status: CacheStatus, now: number): true {
    ctx.response = deliver(ctx, entry, status, now);
    return true;
  }

  /** The object for the request under `key` in either tier, following a Vary marker. */
  private async lookup(key: string, ctx: RequestContext): Promise<CacheEntry | undefined> {
    const top = await this.lookupKey(key, ctx);
    if (!top?.marker) return top;
    return this.lookupKey(variantKey(key, top.vary, ctx.req.headers), ctx);
  }

  // Memory first; the disk when memory has nothing fresh (another worker may have refreshed it), refilling memory.
  private async lookupKey(key: string, ctx: RequestContext): Promise<CacheEntry | undefined> {
    const inMemory = this.memory.get(key);
    if (inMemory && (inMemory.marker || this.now() < inMemory.freshUntil)) return inMemory;
    const onDisk = await this.fromDisk(key, ctx);
    if (onDisk && (!inMemory || onDisk.freshUntil > inMemory.freshUntil)) {
      this.memory.set(onDisk);
      return onDisk;
    }
    return inMemory;
  }

  private async fromDisk(key: string, ctx: RequestContext): Promise<CacheEntry | undefined> {
    if (!this.disk) return undefined;
    try {
      const entry = await this.disk.get(key);
      if (!entry || !(purgedSinceStored(entry, ctx.config) || this.invalidations.covers(entry, this.now()))) return entry;
      await this.disk.delete(key);
    } catch (error) {
      this.options.onError?.(error);
    }
    return undefined;
  }

  private async fetch(ctx: RequestContext, rule: CacheRule | undefined, key: string, stale: CacheEntry | undefined, mayWait: boolean): Promise<boolean> {
    const status: CacheStatus = stale ? 'EXPIRED' : 'MISS';
    ctx.cacheStatus = status;
    const waiting = this.inflight.get(key);
    const coalesce = !this.coalescingOff(key);
    if (waiting && mayWait && coalesce) return this.follow(ctx, rule, key, stale, waiting, status);
    const fill = mayFill(ctx);
    const settle = fill && !waiting && coalesce ? this.claim(key) : NOTHING;
    const purgesBefore = this.purges.position;
    const conditional = fill ? validatorsOf(stale) : undefined;
    let response: EdgeResponse;
    try {
      response = await this.options.fetchOrigin(ctx, conditional ? { conditional } : undefined);
    } catch (error) {
      settle('failed');
      if (stale && this.now() < stale.sieUntil) return this.serve(ctx, stale, 'STALE', this.now());
      throw error;
    }
    if (response.status >= 500 && stale && this.now() < stale.sieUntil) {
      discardBody(response.body);
      settle('failed');
      return this.serve(ctx, stale, 'STALE', this.now());
    }
    if (!fill) return this.pass(ctx, response, status);
    if (conditional && stale && response.status === 304) return this.revalidated(ctx, rule, key, stale, response, settle, purgesBefore);
    try {
      return this.fill(ctx, rule, key, response, status, settle, purgesBefore);
    } catch (error) {
      settle('failed');
      throw error;
    }
  }

  // A follower is served the object the leader stored; otherwise it fetches for itself.
  private async follow(ctx: RequestContext, rule: CacheRule | undefined, key: string, stale: CacheEntry | undefined, waiting: Promise<Outcome>, status: CacheStatus): Promise<boolean> {
    const outcome = await waiting;
    if (outcome === 'stored') {
      const entry = await this.lookup(key, ctx);
      if (entry && this.now() < entry.freshUntil) return this.serve(ctx, entry, status, this.now());
    } else if (outcome === 'failed' && stale && this.now() < stale.sieUntil) return this.serve(ctx, stale, 'STALE', this.now());
    return this.fetch(ctx, rule, key, stale, false);
  }

  // The origin confirmed the stored object (304): its headers are updated from the 304's, it is
  // stored again with a new freshness, and served (RFC 9111 §4.3.4).
  private revalidated(ctx: RequestContext, rule: CacheRule | undefined, key: string, stale: CacheEntry, confirmation: EdgeResponse, settle: Settle, purgesBefore: number): true {
    const fetchedAt = this.now();
    const { fresh, entries } = this.confirmed(ctx, rule, key, stale, confirmation, fetchedAt);
    if (fresh.store) void this.store(entries, settle, purgesBefore);
    else {
      settle('not_stored');
      this.stopCoalescing(key, fetchedAt);
    }
    return this.serve(ctx, entries[0], 'EXPIRED', fetchedAt);
  }

  // The stored object a 304 confirmed, with the 304's headers and the freshness they give.
  private confirmed(ctx: RequestContext, rule: CacheRule | undefined, key: string, stale: CacheEntry, confirmation: EdgeResponse, fetchedAt: number): { fresh: Freshness; entries: CacheEntry[] } {
    discardBody(confirmation.body);
    const headers = updatedHeaders(stale.headers, confirmation.headers);
    const fresh = this.freshness(ctx, rule, { status: stale.status, headers, body: null }, fetchedAt);
    return { fresh, entries: entriesFor(ctx, key, stale.status, storedHeaders(headers, fresh, stale.body.length), stale.body, fresh, fetchedAt) };
  }

  private pass(ctx: RequestContext, response: EdgeResponse, status: CacheStatus): true {
    response.headers['x-cache'] = status;
    ctx.cacheStatus = status;
    ctx.response = response;
    return true;
  }

  // Sends the origin's response on and stores it once its body is complete, when it may be stored.
  private fill(ctx: RequestContext, rule: CacheRule | undefined, key: string, response: EdgeResponse, status: CacheStatus, settle: Settle, purgesBefore: number): true {
    const fetchedAt = this.now();
    const fresh = this.freshness(ctx, rule, response, fetchedAt);
    const declared = Number(response.headers['content-length'] ?? 0);
    if (!fresh.store || declared > this.limit) {
      settle('not_stored');
      this.stopCoalescing(key, fetchedAt);
      return this.pass(ctx, response, status);
    }
    const origin = response.headers;
    const store = (body: Buffer | null): Promise<void> | undefined => {
      if (body === null) {
        settle('not_stored');
        this.stopCoalescing(key, fetchedAt);
        return undefined;
      }
      const entries = entriesFor(ctx, key, response.status, storedHeaders(origin, fresh, body.length), body, fresh, fetchedAt);
      return this.store(entries, settle, purgesBefore);
    };
    const body = response.body;
    const client: EdgeResponse = { status: response.status, headers: { ...origin }, body };
    if (fresh.clientCacheControl !== undefined) client.headers['cache-control'] = fresh.clientCacheControl;
    if (body === null || Buffer.isBuffer(body)) void store(body ?? Buffer.alloc(0));
    else client.body = teeForStore(body, this.limit, store);
    return this.pass(ctx, client, status);
  }

  private freshness(ctx: RequestContext, rule: CacheRule | undefined, response: EdgeResponse, now: number): Freshness {
    const settings = ctx.domain!.cache;
    const request = ctx.req.headers;
    const requestNoStore = request['cache-control'] !== undefined && parseCacheControl(request['cache-control']).has('no-store');
    return decideFreshness({ status: response.status, headers: response.headers, settings, rule, page: ctx.page, authorized: request.authorization !== undefined, requestNoStore, now });
  }

  // Memory first, so waiting requests are released as soon as they can be served; then the disk.
  // Nothing is stored when a purge applied since the fetch began covers the object.
  private async store(entries: CacheEntry[], settle: Settle, purgesBefore: number): Promise<void> {
    if (this.purges.coversSince(purgesBefore, entries[0])) return settle('not_stored');
    let stored = false;
    for (const entry of entries) stored = this.memory.set(entry) || stored;
    if (stored) settle('stored');
    if (this.disk && entries[0].body.length <= this.disk.maxBytes) {
      try {
        for (const entry of entries) {
          const { file, size } = await this.disk.put(entry);
          this.options.onStored(file, size);
        }
        stored = true;
      } catch (error) {
        this.options.onError?.(error);
      }
    }
    settle(stored ? 'stored' : 'not_stored');
  }

  // One refresh per key; the stale object is served meanwhile.
  private refreshInBackground(ctx: RequestContext, rule: CacheRule | undefined, key: string): void {
    if (!mayFill(ctx) || this.inflight.has(key)) return;
    const settle = this.claim(key);
    const purgesBefore = this.purges.position;
    const stale = this.memory.get(key);
    const conditional = validatorsOf(stale?.marker ? undefined : stale);
    const refresh = async (): Promise<void> => {
      const response = await this.options.fetchOrigin(ctx, { detached: true, ...(conditional ? { conditional } : {}) });
      const fetchedAt = this.now();
      if (conditional && stale && response.status === 304) {
        const { fresh, entries } = this.confirmed(ctx, rule, key, stale, response, fetchedAt);
        return fresh.store ? this.store(entries, settle, purgesBefore) : settle('not_stored');
      }
      const fresh = this.freshness(ctx, rule, response, fetchedAt);
      if (!fresh.store) {
        discardBody(response.body);
        return settle('not_stored');
      }
      const body = await collectBody(response.body, this.limit);
      if (body === null) return settle('not_stored');
      await this.store(entriesFor(ctx, key, response.status, storedHeaders(response.headers, fresh, body.length), body, fresh, fetchedAt), settle, purgesBefore);
    };
    refresh().catch((error: unknown) => {
      settle('failed');
      this.options.onError?.(error);
    });
  }

  /** Makes this request the one fetch of `key` others wait for; the returned function ends the wait (once). */
  private claim(key: string): Settle {
    let resolve!: (outcome: Outcome) => void;
    const promise = new Promise<Outcome>((done) => (resolve = done));
    this.inflight.set(key, promise);
    let settled = false;
    return (outcome) => {
      if (settled) return;
      settled = true;
      if (this.inflight.get(key) === promise) this.inflight.delete(key);
      resolve(outcome);
    };
  }

  private coalescingOff(key: string): boolean {
    const until = this.noCoalesceUntil.get(key);
    if (until === undefined) return false;
    if (this.now() < until) return true;
    this.noCoalesceUntil.delete(key);
    return false;
  }

  // An unstorable response would make every waiter fetch again after it: let them fetch at once for a while.
  private stopCoalescing(key: string, now: number): void {
    if (this.noCoalesceUntil.size >= NO_COALESCE_KEYS) this.noCoalesceUntil.delete(this.noCoalesceUntil.keys().next().value!);
    this.noCoalesceUntil.delete(key);
    this.noCoalesceUntil.set(key, now + NO_COALESCE_MS);
  }
}

/** The cache request phase (named 'cache'); see the file comment for what "handled" means. */
export function createCachePhase(options: CachePhaseOptions): Phase {
  return new CachePhase(options);
}

// The cache request phase: answers from the memory tier synchronously on a
// fresh hit; otherwise looks at the disk tier, serves stale objects, and fetches
// from the origin with one fetch per key at a time, storing what may be stored.
// Handled: ctx.response is set (a cached object, or the origin's response on a
// miss). Not handled (false): the request bypasses the cache and the origin
// phase proxies it. Behaviour: docs/edge-cache.md.
import { Buffer } from 'node:buffer';
import type { CacheStatus, RequestContext } from '../pipeline/context.js';
import type { Phase } from '../pipeline/phase.js';
import type { EdgeResponse } from '../pipeline/response.js';
import { firstMatch } from '../../shared/rules/rule-set.js';
import { parseCacheControl } from './cache-control.js';
import { keyParts, keyText, variantKey, type KeyParts } from './cache-key.js';
import { deliver } from './deliver.js';
import { CacheStorage, type StoreJob } from './cache-storage.js';
import { Coalescing, NOTHING, type Outcome, type Settle } from './coalescing.js';
import { releaseBody, type StoredBody } from './disk-body.js';
import type { DiskTier } from './disk-tier.js';
import { bypassReason, decideFreshness, type Freshness } from './freshness.js';
import { InvalidationLog } from './invalidation-log.js';
import type { MemoryTier } from './memory-tier.js';
import { purgedSinceStored } from './purge.js';
import { PurgeLog } from './purge-log.js';
import { updatedHeaders, validatorsOf } from './revalidation.js';
import { entriesFor, originHeadersOf, type FetchTimes } from './stored-entry.js';
import { discardBody, STORE_WAIT_MS, storeUnread, teeForStore } from './tee.js';
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
  /** Called after each disk write, to tell the primary's DiskCacheIndex (`resource`: resourceOf the object). */
  onStored: (file: string, size: number, resource: string) => void;
  now?: () => number;
  /** CDN_EDGE_CACHE_MAX_OBJECT_BYTES. */
  maxObjectBytes?: number;
  /** Failures off the request path (disk, background refresh). */
  onError?: (error: unknown) => void;
  /** The purges this worker applied (applyPurges records them): a fill they overtook is not stored. */
  purges?: PurgeLog;
  /** Fills writing to disk at once in this worker (default 64); a fill past it is not stored. */
  maxDiskFills?: number;
  /** The resources invalidated lately (invalidation.ts): older disk objects of them are not served, fills they overtook not stored. */
  invalidations?: InvalidationLog;
  /** How long a request waits for another's fetch of its key (default LOCK_TIMEOUT_MS, 5 s). */
  lockTimeoutMs?: number;
};

/** How a fetch goes: `may-wait` for another request's fetch of the key; `own` (it waited already) fetches and may store; `uncached` fetches and stores nothing. */
type FetchMode = 'may-wait' | 'own' | 'uncached';

// Only a plain GET may fill the cache: HEAD has no body, Range a part, and conditionals may get a 304.
function mayFill(ctx: RequestContext): boolean {
  const headers = ctx.headers;
  return (
    ctx.method === 'GET' &&
    headers.range === undefined &&
    headers['if-none-match'] === undefined &&
    headers['if-modified-since'] === undefined &&
    headers['if-match'] === undefined &&
    headers['if-unmodified-since'] === undefined
  );
}

// The size of a response's body: a whole one's length, else what its Content-Length declares (0 when it declares none).
function bodySize(response: EdgeResponse): number {
  return Buffer.isBuffer(response.body) ? response.body.length : Number(response.headers['content-length'] ?? 0);
}

class CachePhase implements Phase {
  readonly name = 'cache';
  private readonly memory: MemoryTier;
  private readonly disk: DiskTier | null;
  private readonly now: () => number;
  private readonly purges: PurgeLog;
  private readonly storage: CacheStorage;
  private readonly invalidations: InvalidationLog;
  private readonly coalescing: Coalescing;

  constructor(private readonly options: CachePhaseOptions) {
    this.memory = options.memory;
    this.disk = options.disk;
    this.now = options.now ?? Date.now;
    this.purges = options.purges ?? new PurgeLog();
    this.invalidations = options.invalidations ?? new InvalidationLog();
    this.coalescing = new Coalescing(this.now, options.lockTimeoutMs);
    const onError = (error: unknown): void => options.onError?.(error);
    this.storage = new CacheStorage({
      memory: this.memory,
      disk: this.disk,
      purges: this.purges,
      invalidations: this.invalidations,
      onStored: options.onStored,
      onError,
      maxObjectBytes: options.maxObjectBytes,
      maxDiskFills: options.maxDiskFills,
    });
  }

  run(ctx: RequestContext): boolean | Promise<boolean> {
    const domain = ctx.domain;
    if (!domain) return false;
    const rule = ctx.facts ? (firstMatch(domain.rules['cache-rules'], ctx.facts)?.rule as CacheRule | undefined) : undefined;
    if (bypassReason(domain.cache, rule, ctx.page, ctx.method) !== undefined) {
      ctx.cacheStatus = 'BYPASS';
      return false;
    }
    const parts = keyParts(ctx, rule);
    const now = this.now();
    const entry = this.fromMemory(parts, ctx);
    if (entry !== undefined && now < entry.freshUntil) {
      ctx.response = deliver(ctx, entry, 'HIT', now);
      return true;
    }
    const key = keyText(parts);
    // A key whose last answer could not be stored (no-store, private…) is not looked for on disk: it is not there.
    if (this.coalescing.off(key)) return this.fetch(ctx, rule, key, undefined, 'may-wait');
    return this.slowPath(ctx, rule, key);
  }

  private fromMemory(parts: KeyParts, ctx: RequestContext): CacheEntry | undefined {
    const entry = this.memory.find(parts);
    if (entry === undefined || !entry.marker) return entry;
    return this.memory.get(variantKey(keyText(parts), entry.vary, ctx));
  }

  private async slowPath(ctx: RequestContext, rule: CacheRule | undefined, key: string): Promise<boolean> {
    const entry = await this.lookup(key, ctx);
    try {
      const now = this.now();
      if (entry && now < entry.freshUntil) return this.serve(ctx, entry, 'HIT', now);
      if (entry && now < entry.swrUntil) {
        this.refreshInBackground(ctx, rule, key, entry);
        return this.serve(ctx, entry, 'STALE', now);
      }
      return await this.fetch(ctx, rule, key, entry, 'may-wait');
    } finally {
      // A body left on disk stays open while a response or a store reads it, not longer.
      releaseBody(entry?.body);
    }
  }

  private serve(ctx: RequestContext, entry: CacheEntry, status: CacheStatus, now: number): true {
    ctx.response = deliver(ctx, entry, status, now);
    return true;
  }

  /** The object for the request under `key` in either tier, following a Vary marker; the caller releases its body (releaseBody). */
  private async lookup(key: string, ctx: RequestContext): Promise<CacheEntry | undefined> {
    const top = await this.lookupKey(key, ctx);
    if (!top?.marker) return top;
    return this.lookupKey(variantKey(key, top.vary, ctx), ctx);
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
    releaseBody(onDisk?.body);
    return inMemory;
  }

  private async fromDisk(key: string, ctx: RequestContext): Promise<CacheEntry | undefined> {
    if (!this.disk) return undefined;
    try {
      // Bodies the memory tier would not take stay in their file and are streamed from it.
      const entry = await this.disk.get(key, this.memory.maxObjectBytes);
      if (!entry || !(purgedSinceStored(entry, ctx.config) || this.invalidations.covers(entry, this.now()))) return entry;
      releaseBody(entry.body);
      await this.disk.delete(key);
    } catch (error) {
      this.options.onError?.(error);
    }
    return undefined;
  }

  private async fetch(ctx: RequestContext, rule: CacheRule | undefined, key: string, stale: CacheEntry | undefined, mode: FetchMode): Promise<boolean> {
    const status: CacheStatus = stale ? 'EXPIRED' : 'MISS';
    ctx.cacheStatus = status;
    const waiting = this.coalescing.waiting(key);
    if (waiting && mode === 'may-wait') return this.follow(ctx, rule, key, stale, waiting, status);
    const fill = mode !== 'uncached' && mayFill(ctx);
    const settle = fill ? this.coalescing.claim(key) : NOTHING;
    const purgesBefore = this.purges.position;
    const fetchedAt = this.now();
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
    if (conditional && stale && response.status === 304) return this.revalidated(ctx, rule, key, stale, response, settle, purgesBefore, fetchedAt);
    try {
      return this.fill(ctx, rule, key, response, status, settle, purgesBefore, fetchedAt);
    } catch (error) {
      settle('failed');
      throw error;
    }
  }

  // A follower is served the object the leader stored; otherwise it fetches for itself. A leader
  // slower than the lock timeout (its client reads slowly) is not waited for: the follower fetches
  // for itself and stores nothing, as nginx's proxy_cache_lock_timeout.
  private async follow(ctx: RequestContext, rule: CacheRule | undefined, key: string, stale: CacheEntry | undefined, waiting: Promise<Outcome>, status: CacheStatus): Promise<boolean> {
    const outcome = await this.coalescing.wait(waiting);
    if (outcome === 'timeout') return this.fetch(ctx, rule, key, stale, 'uncached');
    if (outcome === 'stored') {
      const entry = await this.lookup(key, ctx);
      try {
        if (entry && this.now() < entry.freshUntil) return this.serve(ctx, entry, status, this.now());
      } finally {
        releaseBody(entry?.body);
      }
    } else if (outcome === 'failed' && stale && this.now() < stale.sieUntil) return this.serve(ctx, stale, 'STALE', this.now());
    return this.fetch(ctx, rule, key, stale, 'own');
  }

  // The origin confirmed the stored object (304): its headers are updated from the 304's, it is
  // stored again with a new freshness, and served (RFC 9111 §4.3.4).
  private revalidated(ctx: RequestContext, rule: CacheRule | undefined, key: string, stale: CacheEntry, confirmation: EdgeResponse, settle: Settle, purgesBefore: number, fetchedAt: number): true {
    const receivedAt = this.now();
    const { fresh, entries } = this.confirmed(ctx, rule, key, stale, confirmation, { fetchedAt, receivedAt });
    if (fresh.store) void this.storage.store(entries, settle, purgesBefore);
    else {
      settle('not_stored');
      this.coalescing.stop(key, receivedAt);
    }
    return this.serve(ctx, entries[0], 'EXPIRED', receivedAt);
  }

  // The stored object a 304 confirmed, with the 304's headers and the freshness they give: decided
  // from the origin's own Cache-Control and targeted fields, never the browser's (RFC 9111 §4.3.4).
  private confirmed(ctx: RequestContext, rule: CacheRule | undefined, key: string, stale: CacheEntry, confirmation: EdgeResponse, times: FetchTimes): { fresh: Freshness; entries: CacheEntry[] } {
    discardBody(confirmation.body);
    const headers = updatedHeaders(originHeadersOf(stale), confirmation.headers);
    const fresh = this.freshness(ctx, rule, { status: stale.status, headers, body: null }, times.receivedAt);
    return { fresh, entries: entriesFor(ctx, key, stale.status, headers, stale.body, stale.body.length, fresh, times) };
  }

  private pass(ctx: RequestContext, response: EdgeResponse, status: CacheStatus): true {
    response.headers['x-cache'] = status;
    ctx.cacheStatus = status;
    ctx.response = response;
    return true;
  }

  // Sends the origin's response on and stores it once its body is complete, when it may be stored.
  private fill(ctx: RequestContext, rule: CacheRule | undefined, key: string, response: EdgeResponse, status: CacheStatus, settle: Settle, purgesBefore: number, fetchedAt: number): true | Promise<true> {
    const receivedAt = this.now();
    const fresh = this.freshness(ctx, rule, response, receivedAt);
    if (!fresh.store || bodySize(response) > this.storage.limit) {
      settle('not_stored');
      this.coalescing.stop(key, receivedAt);
      return this.pass(ctx, response, status);
    }
    const job = this.storeJob(ctx, key, response, fresh, { fetchedAt, receivedAt }, settle, purgesBefore);
    const body = response.body;
    const client: EdgeResponse = { status: response.status, headers: { ...response.headers }, body };
    if (fresh.clientCacheControl !== undefined) client.headers['cache-control'] = fresh.clientCacheControl;
    if (body === null || Buffer.isBuffer(body)) {
      const stored = this.storage.storeWhole(body, job);
      return this.disk ? this.passOnceShared(ctx, client, status, stored) : this.pass(ctx, client, status);
    }
    const writer = this.storage.writer(response.headers['content-length'], job, () => this.coalescing.stop(key, receivedAt));
    // Every disk fill slot is taken: the response goes to the client as it came, not stored.
    if (!writer) {
      settle('not_stored');
      return this.pass(ctx, response, status);
    }
    client.body = teeForStore(body, writer);
    return this.pass(ctx, client, status);
  }

  // A whole body is answered once it reached the shared (disk) tier, or after STORE_WAIT_MS, as the
  // tee holds a streamed body's last bytes: a client that has the whole answer finds it on any worker.
  private async passOnceShared(ctx: RequestContext, client: EdgeResponse, status: CacheStatus, stored: Promise<void>): Promise<true> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([stored, new Promise((resolve) => (timer = setTimeout(resolve, STORE_WAIT_MS)))]);
    clearTimeout(timer);
    return this.pass(ctx, client, status);
  }

  // How the response fetched for the request under `key` is stored.
  private storeJob(ctx: RequestContext, key: string, response: EdgeResponse, fresh: Freshness, times: FetchTimes, settle: Settle, purgesBefore: number): StoreJob {
    const entriesOf = (body: StoredBody, length: number): CacheEntry[] => entriesFor(ctx, key, response.status, response.headers, body, length, fresh, times);
    return { entriesOf, settle, purgesBefore };
  }

  private freshness(ctx: RequestContext, rule: CacheRule | undefined, response: EdgeResponse, now: number): Freshness {
    const settings = ctx.domain!.cache;
    const request = ctx.headers;
    const requestNoStore = request['cache-control'] !== undefined && parseCacheControl(request['cache-control']).has('no-store');
    return decideFreshness({ status: response.status, headers: response.headers, settings, rule, page: ctx.page, authorized: request.authorization !== undefined, requestNoStore, now });
  }

  // One refresh per key, revalidating the object being served (a Vary variant, or an object on disk
  // only, whose file stays open until the refresh is done with it); it is served meanwhile.
  private refreshInBackground(ctx: RequestContext, rule: CacheRule | undefined, key: string, stale: CacheEntry): void {
    if (!mayFill(ctx) || this.coalescing.busy(key)) return;
    const settle = this.coalescing.claim(key);
    const purgesBefore = this.purges.position;
    const fetchedAt = this.now();
    const conditional = validatorsOf(stale);
    if (!Buffer.isBuffer(stale.body)) stale.body.retain();
    const refresh = async (): Promise<void> => {
      const response = await this.options.fetchOrigin(ctx, { detached: true, ...(conditional ? { conditional } : {}) });
      const receivedAt = this.now();
      if (conditional && response.status === 304) {
        const { fresh, entries } = this.confirmed(ctx, rule, key, stale, response, { fetchedAt, receivedAt });
        return fresh.store ? this.storage.store(entries, settle, purgesBefore) : settle('not_stored');
      }
      const fresh = this.freshness(ctx, rule, response, receivedAt);
      const body = response.body;
      if (!fresh.store || bodySize(response) > this.storage.limit) {
        discardBody(body);
        return settle('not_stored');
      }
      const job = this.storeJob(ctx, key, response, fresh, { fetchedAt, receivedAt }, settle, purgesBefore);
      if (body === null || Buffer.isBuffer(body)) return this.storage.storeWhole(body, job);
      const writer = this.storage.writer(response.headers['content-length'], job, () => undefined);
      if (writer) return storeUnread(body, writer);
      discardBody(body);
      settle('not_stored');
    };
    refresh()
      .catch((error: unknown) => {
        settle('failed');
        this.options.onError?.(error);
      })
      .finally(() => releaseBody(stale.body));
  }
}

/** The cache request phase (named 'cache'); see the file comment for what "handled" means. */
export function createCachePhase(options: CachePhaseOptions): Phase {
  return new CachePhase(options);
}

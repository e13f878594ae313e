import type pg from 'pg';
import { readVersion, type ReadModel } from '../db/read-versions.js';
import { RawJson } from './route.js';

/**
 * A bounded cache of serialized JSON responses. Each entry is valid for one
 * version of the read model it came from, so a write anywhere (on any replica)
 * that moves the version makes every older entry unreachable.
 */
export class VersionedCache {
  private readonly entries = new Map<string, { version: string; body: string }>();

  constructor(private readonly maxEntries = 256) {}

  /** The cached body for `key` at `version`, computing and storing it on a miss. */
  async json(key: string, version: string, compute: () => Promise<unknown>): Promise<string> {
    const hit = this.entries.get(key);
    if (hit?.version === version) return hit.body;
    const body = JSON.stringify(await compute());
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { version, body });
    return body;
  }
}

/** A response body from `cache`, valid for the current version of `model`. */
export async function cachedJson(cache: VersionedCache, pool: pg.Pool, model: ReadModel, key: string, compute: () => Promise<unknown>): Promise<RawJson> {
  const version = await readVersion(pool, model);
  return new RawJson(await cache.json(key, version, compute));
}

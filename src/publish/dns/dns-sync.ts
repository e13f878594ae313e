// The level-triggered DNS reconciler: compares each domain's desired zone with
// what PowerDNS holds and sends only the difference, one PATCH per zone (deletes
// before replaces); creates missing zones and deletes the zones of domains that
// are gone. One run at a time across core replicas (advisory lock). Every zone
// write attempt is a dns_sync_events row; dns_zone_states keeps each zone's
// digests and last error. Behaviour: docs/dns-publishing.md.
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../../config/load.js';
import type { Db } from '../../db/client.js';
import { LOCK_KEYS, withAdvisoryLockIfFree } from '../../db/advisory-lock.js';
import { desiredZone, zoneDigest, type DesiredZone } from './desired-zone.js';
import { PowerDnsError, type PowerDnsClient, type PowerDnsRrset } from './powerdns-client.js';
import { absolute } from './record-presentation.js';
import { zoneChanges } from './zone-diff.js';
import { loadZoneSources, type DomainZone } from './zone-sources.js';

/** The PowerDNS account of the zones this control plane owns: only those are ever changed or deleted. */
export const ZONE_ACCOUNT = 'cdn-control-plane';
/** Names of a created or deleted zone whose cached answers are flushed, at most. */
const FLUSHED_NAMES = 100;
const MAX_ERROR = 1000;
/** A full run asks whether changes wait after this many zones. */
const INTERRUPT_EVERY = 10;
const MAX_BACKOFF_MS = 3600_000;

export type ZoneAction = 'create' | 'patch' | 'delete' | 'none';
export type ZoneSyncResult = { zone: string; domainId: string | null; action: ZoneAction; changes: number; error?: string; notes: string[]; retryable?: boolean };
export type SyncRun = { full: boolean; zones: ZoneSyncResult[]; aborted?: string };

type Attempt = { action: ZoneAction; changes: number };
type ZoneState = { zone_name: string; desired_hash: string | null; published_hash: string | null; last_error: string | null; attempts: number; last_attempt_at: Date | null; refused: boolean };

/** A zone PowerDNS holds under another account: left alone, reported on the zone state only (nothing was written). */
class NotOursError extends Error {}

function asRrsets(desired: DesiredZone): PowerDnsRrset[] {
  return desired.rrsets.map((rrset) => ({
    name: rrset.name,
    type: rrset.type,
    ttl: rrset.ttl,
    // A new zone starts at serial 1; SOA-EDIT-API moves it on with every change.
    records: rrset.contents.map((content) => ({ content: rrset.type === 'SOA' ? content.replace(/^(\S+ \S+) 0 /, '$1 1 ') : content, disabled: false })),
  }));
}

function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, MAX_ERROR);
}

export class DnsSync {
  private readonly now: () => Date;

  constructor(
    private readonly deps: { db: Db; pool: pg.Pool; config: Config; client: PowerDnsClient; logger: Logger; now?: () => Date },
  ) {
    this.now = deps.now ?? (() => new Date());
  }

  /**
   * One reconcile of every zone. `full` asks PowerDNS for every zone and repairs
   * drift; otherwise only zones whose desired digest moved since they were last
   * published are written. A full run asks `interrupt` every few zones whether
   * changes are waiting: if so, the zones they touched are written first, and the
   * sweep goes on with the new state (a change never waits for a whole sweep).
   * Undefined when another core is running one.
   */
  async run(options: { full: boolean; interrupt?: () => Promise<boolean> }): Promise<SyncRun | undefined> {
    const locked = await withAdvisoryLockIfFree(this.deps.pool, LOCK_KEYS.dnsSync, () => this.runLocked(options.full, options.interrupt));
    return locked?.value;
  }

  private async runLocked(full: boolean, interrupt?: () => Promise<boolean>): Promise<SyncRun> {
    const run: SyncRun = { full, zones: [] };
    // Unlisted because PowerDNS is down: every zone is then asked for, and the first failure ends the run.
    // Refused (a wrong key or server id): no zone call could succeed, so none is made or recorded.
    const listing = await this.deps.client.zones().then((zones) => ({ zones }), (error: unknown) => ({ error }));
    if ('error' in listing && listing.error instanceof PowerDnsError && !listing.error.retryable) {
      run.aborted = errorText(listing.error);
      return run;
    }
    const listed = 'zones' in listing ? listing.zones : undefined;
    const held = new Map((listed ?? []).map((zone) => [zone.name.toLowerCase(), zone]));
    let view = await this.view();
    for (let index = 0; index < view.sources.length; index++) {
      if (full && interrupt && index % INTERRUPT_EVERY === 0 && index > 0 && (await interrupt())) {
        view = await this.view();
        if (await this.pass(view, held, listed !== undefined, false, run, 0)) return run;
      }
      if (await this.pass(view, held, listed !== undefined, full, run, index, index + 1)) return run;
    }
    if (listed) run.zones.push(...(await this.deleteOrphans(view.sources, held)));
    return run;
  }

  // The desired side: every zone source, and the stored state of each (refused: its last failure was PowerDNS's 4xx).
  private async view(): Promise<{ sources: DomainZone[]; states: Map<string, ZoneState> }> {
    const sources = await loadZoneSources(this.deps.db, this.deps.config, this.now());
    const rows = await this.deps.db.dnsZoneState.findMany();
    const refused = await this.refusedZones(rows.filter((row) => row.last_error).map((row) => row.domain_id));
    const states = new Map(rows.map((row) => [row.domain_id, { ...row, refused: refused.has(row.domain_id) }]));
    return { sources, states };
  }

  // Domains whose last write attempt PowerDNS refused as invalid (a 4xx other than 429).
  private async refusedZones(failing: string[]): Promise<Set<string>> {
    if (!failing.length) return new Set();
    const rows = await this.deps.db.$queryRaw<{ domain_id: string; status_code: number | null }[]>`
      SELECT DISTINCT ON (domain_id) domain_id, status_code FROM dns_sync_events
      WHERE domain_id = ANY(${failing}::text[]) ORDER BY domain_id, id DESC`;
    return new Set(rows.filter((row) => row.status_code !== null && row.status_code >= 400 && row.status_code < 500 && row.status_code !== 429).map((row) => row.domain_id));
  }

  /**
   * A zone PowerDNS refused is not sent again unchanged on every run (each attempt is a failed
   * event, kept for ever): only after CDN_SYNC_INTERVAL_SECONDS × 2^(attempts−1), at most an hour.
   */
  private backingOff(state: ZoneState, digest: string): boolean {
    if (!state.refused || state.desired_hash !== digest || !state.last_attempt_at) return false;
    const delayMs = Math.min(MAX_BACKOFF_MS, this.deps.config.syncIntervalSeconds * 1000 * 2 ** Math.max(0, state.attempts - 1));
    return this.now().getTime() - state.last_attempt_at.getTime() < delayMs;
  }

  /** Syncs view.sources[from, to): every zone when `full`, else those whose digest moved. True when the run must stop. */
  private async pass(view: { sources: DomainZone[]; states: Map<string, ZoneState> }, held: Map<string, { account: string }>, listed: boolean, full: boolean, run: SyncRun, from: number, to = view.sources.length): Promise<boolean> {
    for (const source of view.sources.slice(from, to)) {
      if (source.conflict) {
        await this.recordConflict(source);
        continue;
      }
      const desired = desiredZone(source);
      const digest = zoneDigest(desired);
      const state = view.states.get(source.domainId);
      // Unlisted, a zone published before is taken to be there still: only the zones that changed are tried.
      const present = listed ? held.get(absolute(source.zone))?.account === ZONE_ACCOUNT : true;
      if (!full && present && state?.zone_name === source.zone && state.published_hash === digest && !state.last_error) continue;
      if (state && this.backingOff(state, digest)) continue;
      const result = await this.syncZone(source, desired, digest);
      run.zones.push(result);
      if (!result.error) {
        view.states.set(source.domainId, { zone_name: source.zone, desired_hash: digest, published_hash: digest, last_error: null, refused: false, attempts: 0, last_attempt_at: this.now() });
        held.set(absolute(source.zone), { account: ZONE_ACCOUNT });
      }
      // PowerDNS unreachable or failing (after the client's retries): the other zones would fail the same way.
      if (result.retryable) {
        run.aborted = result.error;
        return true;
      }
    }
    return false;
  }

  /** Brings one zone to `desired`: create it, or PATCH the difference; records the attempt. */
  private async syncZone(source: DomainZone, desired: DesiredZone, digest: string): Promise<ZoneSyncResult> {
    const started = Date.now();
    const step: { action: ZoneAction } = { action: 'patch' };
    try {
      const attempt = await this.write(source.zone, desired, step);
      await this.recordSuccess(source, digest, attempt, Date.now() - started);
      return { zone: source.zone, domainId: source.domainId, ...attempt, notes: desired.notes };
    } catch (error) {
      const failed = step.action;
      if (error instanceof NotOursError) await this.recordRefusal(source, error.message);
      else await this.recordFailure(source, digest, failed, error, Date.now() - started);
      this.deps.logger.warn({ zone: source.zone, err: errorText(error) }, 'zone sync failed');
      return { zone: source.zone, domainId: source.domainId, action: failed, changes: 0, error: errorText(error), notes: desired.notes, retryable: error instanceof PowerDnsError && error.retryable };
    }
  }

  // `step` says which write was under way when one fails.
  private async write(zone: string, desired: DesiredZone, step: { action: ZoneAction }): Promise<Attempt> {
    const { client } = this.deps;
    const actual = await client.zone(zone);
    if (!actual) {
      step.action = 'create';
      await client.createZone({ name: absolute(zone), account: ZONE_ACCOUNT, rrsets: asRrsets(desired) });
      await this.flushNames(zone, desired.rrsets.map((rrset) => rrset.name));
      return { action: 'create', changes: desired.rrsets.length };
    }
    if (actual.account !== ZONE_ACCOUNT) throw new NotOursError(`PowerDNS already has zone ${zone} under account ${JSON.stringify(actual.account)}: it is not this control plane's, so it is left alone`);
    const changes = zoneChanges(desired.rrsets, actual.rrsets);
    if (changes.length) await client.patchZone(zone, changes);
    return { action: changes.length ? 'patch' : 'none', changes: changes.length };
  }

  // PowerDNS's caches keep answers (a refusal too) for names of a zone created or deleted through
  // its API: each name of the zone is flushed, the apex first, at most FLUSHED_NAMES of them (a
  // bigger zone's other names expire with the cache). A flush that fails is logged, not retried:
  // the zone write itself is done, and the cache expires on its own.
  private async flushNames(zone: string, names: readonly string[]): Promise<void> {
    const unique = [...new Set([absolute(zone), ...names.map(absolute)])].slice(0, FLUSHED_NAMES);
    try {
      for (const name of unique) await this.deps.client.flushCache(name);
    } catch (error) {
      this.deps.logger.warn({ zone, err: errorText(error) }, 'PowerDNS cache flush failed');
    }
  }

  // Zones this control plane created whose domain is gone (deleted, or its zone renamed).
  private async deleteOrphans(sources: DomainZone[], held: Map<string, { name: string; account: string }>): Promise<ZoneSyncResult[]> {
    const wanted = new Set(sources.filter((source) => !source.conflict).map((source) => absolute(source.zone)));
    const results: ZoneSyncResult[] = [];
    for (const [name, zone] of held) {
      if (zone.account !== ZONE_ACCOUNT || wanted.has(name)) continue;
      const started = Date.now();
      const zoneName = name.replace(/\.$/, '');
      try {
        const names = (await this.deps.client.zone(zoneName))?.rrsets.map((rrset) => rrset.name) ?? [];
        await this.deps.client.deleteZone(zoneName);
        await this.flushNames(zoneName, names);
        await this.event({ domain_id: null, zone_name: zoneName, action: 'delete', success: true, duration_ms: Date.now() - started, changes: 1 });
        results.push({ zone: zoneName, domainId: null, action: 'delete', changes: 1, notes: [] });
      } catch (error) {
        await this.event({ domain_id: null, zone_name: zoneName, action: 'delete', success: false, ...this.failure(error), duration_ms: Date.now() - started, changes: 0 });
        results.push({ zone: zoneName, domainId: null, action: 'delete', changes: 0, error: errorText(error), notes: [] });
      }
    }
    return results;
  }

  private failure(error: unknown): { status_code: number | null; error: string; attempt: number } {
    return error instanceof PowerDnsError ? { status_code: error.status, error: errorText(error), attempt: error.attempts } : { status_code: null, error: errorText(error), attempt: 1 };
  }

  private async recordSuccess(source: DomainZone, digest: string, attempt: Attempt, durationMs: number): Promise<void> {
    const now = this.now();
    if (attempt.action !== 'none') await this.event({ domain_id: source.domainId, zone_name: source.zone, action: attempt.action, success: true, duration_ms: durationMs, changes: attempt.changes });
    const state = { zone_name: source.zone, desired_hash: digest, published_hash: digest, last_synced_at: now, last_attempt_at: now, last_error: null, attempts: 0 };
    await this.deps.db.dnsZoneState.upsert({ where: { domain_id: source.domainId }, create: { domain_id: source.domainId, ...state }, update: state });
  }

  private async recordFailure(source: DomainZone, digest: string, action: ZoneAction, error: unknown, durationMs: number): Promise<void> {
    const now = this.now();
    await this.event({ domain_id: source.domainId, zone_name: source.zone, action, success: false, ...this.failure(error), duration_ms: durationMs, changes: 0 });
    const state = { zone_name: source.zone, desired_hash: digest, last_attempt_at: now, last_error: errorText(error) };
    await this.deps.db.dnsZoneState.upsert({ where: { domain_id: source.domainId }, create: { domain_id: source.domainId, ...state, attempts: 1 }, update: { ...state, attempts: { increment: 1 } } });
  }

  // Two domains naming one zone: the older one publishes it, the other is reported and left out.
  private async recordConflict(source: DomainZone): Promise<void> {
    await this.recordRefusal(source, `zone ${source.zone} is already published for domain ${source.conflict}`);
  }

  // A zone this control plane may not write: said on its state, with no event (no write was attempted).
  private async recordRefusal(source: DomainZone, reason: string): Promise<void> {
    const state = { zone_name: source.zone, last_attempt_at: this.now(), last_error: reason };
    await this.deps.db.dnsZoneState.upsert({ where: { domain_id: source.domainId }, create: { domain_id: source.domainId, ...state }, update: state });
  }

  private async event(row: { domain_id: string | null; zone_name: string; action: ZoneAction; success: boolean; duration_ms: number; changes: number; status_code?: number | null; error?: string; attempt?: number }): Promise<void> {
    await this.deps.db.dnsSyncEvent.create({ data: row });
  }
}


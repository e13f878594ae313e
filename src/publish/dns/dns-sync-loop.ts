// When the DNS reconciler runs: soon after a change (the dirty counter the
// snapshot publisher also reads, debounced the same way) for the zones whose
// desired state moved, and every CDN_SYNC_INTERVAL_SECONDS for every zone, which
// repairs drift made in PowerDNS and follows edges joining or leaving the pool.
import type { Logger } from 'pino';
import type { Db } from '../../db/client.js';
import { burstSettled, type BurstTiming } from '../dirty.js';
import type { DnsSync, SyncRun } from './dns-sync.js';
import type { CoreMetrics } from '../../metrics/core-metrics.js';

export type DnsSyncStatus = {
  enabled: true;
  last_run_at: number | null;
  last_full_run_at: number | null;
  /** How long the last full run took (every zone read back and compared). */
  last_full_run_ms: number | null;
  last_error: string | null;
  /** Why the last run stopped before its end (PowerDNS down, or refusing the key or server id), else null. */
  last_aborted: string | null;
  last_zones_written: number;
  last_zones_failed: number;
};

export type DnsSyncLoop = { status(): DnsSyncStatus; stop(): Promise<void> };

export type DnsSyncTiming = BurstTiming & { fullEveryMs: number };

const seconds = (date: Date | null) => (date ? Math.floor(date.getTime() / 1000) : null);

/** Starts the loop; `stop` waits for a run under way. `metrics` hears of every run (docs/metrics.md). */
export function startDnsSync(db: Db, sync: DnsSync, logger: Logger, timing: DnsSyncTiming, metrics?: Pick<CoreMetrics, 'dnsRun' | 'dnsRunFailed'>): DnsSyncLoop {
  let seenSeq: bigint | undefined;
  let lastRunAt: Date | null = null;
  let lastFullRunAt: Date | null = null;
  let lastFullTry = 0;
  let lastFullRunMs: number | null = null;
  let lastError: string | null = null;
  let lastAborted: string | null = null;
  let written = 0;
  let failed = 0;
  let running: Promise<void> | undefined;

  const record = (run: SyncRun | undefined, at: Date) => {
    if (!run) return;
    metrics?.dnsRun(run);
    lastRunAt = at;
    if (run.full) {
      lastFullRunAt = at;
      lastFullRunMs = Date.now() - at.getTime();
    }
    written = run.zones.filter((zone) => !zone.error && zone.action !== 'none').length;
    failed = run.zones.filter((zone) => zone.error).length;
    lastError = run.aborted ?? run.zones.find((zone) => zone.error)?.error ?? null;
    lastAborted = run.aborted ?? null;
    if (written || failed) logger.info({ full: run.full, written, failed, aborted: run.aborted }, 'dns sync run');
  };

  // The change counter moved since the last run, and its burst has settled (the publisher's rule).
  const changedAndSettled = async (): Promise<bigint | undefined> => {
    const state = await db.publishState.findUnique({ where: { id: 1 } });
    if (!state || state.change_seq === seenSeq) return undefined;
    return seenSeq === undefined || burstSettled(state, timing) ? state.change_seq : undefined;
  };

  const tick = async () => {
    const full = Date.now() - lastFullTry >= timing.fullEveryMs;
    const seq = full ? undefined : await changedAndSettled();
    if (!full && seq === undefined) return;
    if (full) lastFullTry = Date.now();
    const before = seq ?? (await db.publishState.findUnique({ where: { id: 1 } }))?.change_seq;
    if (before !== undefined && full) seenSeq = before;
    // A change that settles during a full run is written before the sweep goes on.
    const interrupt = async () => {
      const waiting = await changedAndSettled();
      if (waiting !== undefined) seenSeq = waiting;
      return waiting !== undefined;
    };
    const at = new Date();
    const run = await sync.run({ full, interrupt }).catch((error: unknown) => {
      metrics?.dnsRunFailed(full);
      throw error;
    });
    record(run, at);
    // Changes made during the run move change_seq again: the next tick runs once more for them.
    if (before !== undefined && !full) seenSeq = before;
  };

  const timer = setInterval(() => {
    running ??= tick()
      .catch((error: Error) => {
        lastError = error.message;
        logger.warn({ err: error.message }, 'dns sync tick failed');
      })
      .finally(() => {
        running = undefined;
      });
  }, timing.tickMs);
  timer.unref();

  return {
    status: () => ({ enabled: true, last_run_at: seconds(lastRunAt), last_full_run_at: seconds(lastFullRunAt), last_full_run_ms: lastFullRunMs, last_error: lastError, last_aborted: lastAborted, last_zones_written: written, last_zones_failed: failed }),
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

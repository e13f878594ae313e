// The scheduled delegation check: every domain that is pending or active is
// checked again once its last check is CDN_NAMESERVER_CHECK_INTERVAL_SECONDS old
// (a new domain within a minute), so restarts neither skip nor repeat checks. A
// status that moves marks the config dirty: the snapshot and the zone follow
// (records withdrawn when delegation moved away, republished when it is back).
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../../config/load.js';
import type { Db } from '../../db/client.js';
import { LOCK_KEYS, withAdvisoryLockIfFree } from '../../db/advisory-lock.js';
import { markConfigDirty } from '../../publish/dirty.js';
import type { DelegationLookup } from './delegation.js';
import { verifyNameservers } from './service.js';

/** Domains checked per round at most (the rest wait for the next round). */
const BATCH = 100;
const TICK_MS = 60_000;

export type NameserverCheckOptions = { db: Db; pool: pg.Pool; config: Config; logger: Logger; lookup: DelegationLookup; tickMs?: number; now?: () => Date };

/** Checks the domains that are due now, oldest check first; returns how many moved status. */
export async function checkDueDomains(options: NameserverCheckOptions): Promise<{ checked: number; moved: number } | undefined> {
  const { db, pool, config, logger, lookup } = options;
  const now = options.now?.() ?? new Date();
  const dueBefore = new Date(now.getTime() - config.nameserverCheckIntervalSeconds * 1000);
  const locked = await withAdvisoryLockIfFree(pool, LOCK_KEYS.nameserverChecks, async () => {
    const due = await db.domain.findMany({
      where: { status: { in: ['pending_nameserver', 'active'] }, OR: [{ nameservers_checked_at: null }, { nameservers_checked_at: { lte: dueBefore } }] },
      orderBy: [{ nameservers_checked_at: { sort: 'asc', nulls: 'first' } }, { id: 'asc' }],
      take: BATCH,
      select: { id: true },
    });
    let moved = 0;
    for (const { id } of due) {
      const result = await verifyNameservers(db, id, lookup, now).catch((error: Error) => void logger.warn({ domainId: id, err: error.message }, 'nameserver check failed'));
      if (!result || result.domain.status === result.previousStatus) continue;
      moved++;
      await markConfigDirty(db, 'domain.nameserver_check', now);
      logger.info({ domain: result.domain.domain, from: result.previousStatus, to: result.domain.status }, 'domain status moved by the scheduled nameserver check');
    }
    return { checked: due.length, moved };
  });
  return locked?.value;
}

/** Starts the check loop; returns a stop function that waits for a round under way. */
export function startNameserverChecks(options: NameserverCheckOptions): () => Promise<void> {
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    running ??= checkDueDomains(options)
      .catch((error: Error) => options.logger.warn({ err: error.message }, 'nameserver check round failed'))
      .finally(() => {
        running = undefined;
      });
  }, options.tickMs ?? Math.min(TICK_MS, options.config.nameserverCheckIntervalSeconds * 1000));
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

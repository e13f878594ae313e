import type { Logger } from 'pino';
import type { Config } from '../config/load.js';
import type { Connection } from '../db/connect.js';
import { refreshOriginHealth } from '../features/collector/origin-health-status.js';
import { pruneNonces } from '../features/edges/edge-auth.js';
import { pruneLoginThrottles } from '../features/admin/login-throttle.js';
import { secretBoxOf } from '../features/ssl/key-storage.js';
import { resealEarlierKeys } from '../features/ssl/key-rotation.js';
import { resealAccountKeys } from '../features/ssl/acme/acme-account.js';
import { INGEST_KEYS, pruneTarget } from './retention-targets.js';

const INTERVAL_MS = 60000;

export type HousekeepingOptions = { intervalMs?: number; now?: () => Date };

type Chore = { name: string; run: (now: Date) => Promise<unknown> };

function chores(connection: Connection, config: Config, logger: Logger): Chore[] {
  const originHealth = async (now: Date) => {
    const changed = await refreshOriginHealth(connection.pool, now);
    if (changed.length) logger.info({ changed }, 'origin health recomputed from its observation window');
    return changed.length;
  };
  const box = secretBoxOf(config);
  const sslKeyReseal = async () => {
    if (!box) return 0;
    const { resealed, unreadable } = await resealEarlierKeys(connection.prisma, box);
    if (resealed) logger.info({ resealed }, 'stored SSL private keys re-sealed with the current CDN_SSL_SECRET_KEY');
    if (unreadable.length) logger.warn({ certificates: unreadable }, 'stored SSL private keys sealed with a key that is not configured');
    return resealed;
  };
  const acmeAccountReseal = async () => {
    if (!box) return 0;
    const { resealed, unreadable } = await resealAccountKeys(connection.prisma, box);
    if (resealed) logger.info({ resealed }, 'stored ACME account keys re-sealed with the current CDN_SSL_SECRET_KEY');
    if (unreadable.length) logger.warn({ directories: unreadable }, 'stored ACME account keys sealed with a key that is not configured');
    return resealed;
  };
  return [
    { name: 'nonces', run: () => pruneNonces(connection.prisma) },
    { name: 'ingestKeys', run: (now) => pruneTarget(INGEST_KEYS, connection.pool, config, now) },
    { name: 'originHealth', run: originHealth },
    { name: 'loginThrottles', run: (now) => pruneLoginThrottles(connection.pool, now) },
    { name: 'sslKeyReseal', run: sslKeyReseal },
    { name: 'acmeAccountReseal', run: acmeAccountReseal },
  ];
}

/**
 * Background chores every minute on every core (each is safe to run on several
 * at once): edge nonces past their replay window, ingest idempotency keys past
 * CDN_INGEST_KEY_RETENTION_DAYS, login throttle rows with nothing left to remember,
 * origin health recomputed from its sliding window, so an origin nobody
 * observes any more decays to unknown, and SSL private keys and ACME account keys sealed
 * with an earlier CDN_SSL_SECRET_KEY re-sealed with the current one. A failing chore
 * is logged and retried on the next round without stopping the others. `now` is
 * the clock (tests move it). Returns a stop function that waits for a running round.
 */
export function startHousekeeping(connection: Connection, config: Config, logger: Logger, options: HousekeepingOptions = {}): () => Promise<void> {
  const clock = options.now ?? (() => new Date());
  const list = chores(connection, config, logger);
  let running: Promise<void> | undefined;
  const round = async () => {
    const now = clock();
    const done: Record<string, unknown> = {};
    for (const chore of list) {
      done[chore.name] = await chore.run(now).catch((error: Error) => logger.warn({ chore: chore.name, err: error.message }, 'housekeeping chore failed'));
    }
    logger.debug(done, 'housekeeping round done');
  };
  const timer = setInterval(() => {
    running ??= round().finally(() => {
      running = undefined;
    });
  }, options.intervalMs ?? INTERVAL_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

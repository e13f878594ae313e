import type { Logger } from 'pino';
import type { Config } from '../config/load.js';
import type { Connection } from '../db/connect.js';
import { pruneIngestKeys } from '../features/collector/ingest-keys.js';
import { pruneNonces } from '../features/edges/edge-auth.js';
import { pruneLoginThrottles } from '../features/admin/login-throttle.js';

const INTERVAL_MS = 60000;

/**
 * Background pruning every minute: edge nonces past their replay window,
 * ingest idempotency keys past CDN_INGEST_KEY_RETENTION_DAYS and login throttle
 * rows with nothing left to remember. Failures are
 * logged and retried on the next round. Returns a stop function.
 */
export function startHousekeeping(connection: Connection, config: Config, logger: Logger, intervalMs = INTERVAL_MS): () => void {
  const round = async () => {
    const nonces = await pruneNonces(connection.prisma);
    const keys = await pruneIngestKeys(connection.pool, config.ingestKeyRetentionDays);
    const throttles = await pruneLoginThrottles(connection.pool);
    if (nonces || keys || throttles) logger.debug({ nonces, ingestKeys: keys, loginThrottles: throttles }, 'pruned expired nonces, ingest keys and login throttles');
  };
  const timer = setInterval(() => {
    round().catch((error: Error) => logger.warn({ err: error.message }, 'housekeeping failed'));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

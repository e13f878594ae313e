import type { Logger } from 'pino';
import type { Config } from '../config/load.js';
import type { Connection } from '../db/connect.js';
import { pruneIngestKeys } from '../features/collector/ingest-keys.js';
import { pruneNonces } from '../features/edges/edge-auth.js';

const INTERVAL_MS = 60000;

/**
 * Background pruning every minute: edge nonces past their replay window and
 * ingest idempotency keys past CDN_INGEST_KEY_RETENTION_DAYS. Failures are
 * logged and retried on the next round. Returns a stop function.
 */
export function startHousekeeping(connection: Connection, config: Config, logger: Logger, intervalMs = INTERVAL_MS): () => void {
  const round = async () => {
    const nonces = await pruneNonces(connection.prisma);
    const keys = await pruneIngestKeys(connection.pool, config.ingestKeyRetentionDays);
    if (nonces || keys) logger.debug({ nonces, ingestKeys: keys }, 'pruned expired nonces and ingest keys');
  };
  const timer = setInterval(() => {
    round().catch((error: Error) => logger.warn({ err: error.message }, 'housekeeping failed'));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

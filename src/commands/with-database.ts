import type { Config } from '../config/load.js';
import type { Db } from '../db/client.js';
import { HttpError } from '../http/errors.js';

/**
 * Runs an operations command against the database (DATABASE_URL or the embedded
 * one, migrated when CDN_AUTO_MIGRATE), then closes it. The database layer and the
 * command's service are imported only now, so `cdn --help` stays light. Service
 * errors become plain errors with their detail, for the one-line CLI message.
 */
export async function withDatabase<S, T>(config: Config, loadService: () => Promise<S>, work: (db: Db, service: S) => Promise<T>): Promise<T> {
  const [{ createLogger }, { connect }, service] = await Promise.all([import('../core/logger.js'), import('../db/connect.js'), loadService()]);
  const logger = createLogger({ logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel });
  const connection = await connect(config, logger, { poolSize: 2, migrate: config.autoMigrate });
  try {
    return await work(connection.prisma, service);
  } catch (error) {
    if (error instanceof HttpError) throw new Error(error.detail ? `${error.message}: ${error.detail}` : error.message);
    throw error;
  } finally {
    await connection.shutdown();
  }
}

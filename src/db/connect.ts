import type { Logger } from 'pino';
import type { Config } from '../config/load.js';
import { openDatabase, type Database } from './client.js';
import { startEmbeddedPostgres } from './embedded.js';
import { migrate, migrationStatus, pendingNames } from './migrator.js';

export type Connection = Database & { url: string; embedded: boolean; shutdown: () => Promise<void> };

async function warnAboutPendingMigrations(database: Database, logger: Logger): Promise<void> {
  const pending = pendingNames(await migrationStatus(database.pool));
  if (pending.length) logger.warn({ pending }, 'pending migrations are not applied (CDN_AUTO_MIGRATE=false); run `cdn migrate`');
}

/**
 * Connects to DATABASE_URL, or starts the embedded PostgreSQL under CDN_DATA_DIR
 * when it is unset. `shutdown` closes the pool and stops an embedded cluster.
 * `onQueryError` hears of every query that fails.
 */
export async function connect(config: Config, logger: Logger, options: { poolSize?: number; migrate?: boolean; onQueryError?: (error: unknown) => void } = {}): Promise<Connection> {
  const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres(config.dataDir, logger);
  const url = config.databaseUrl ?? embedded!.url;
  const database = openDatabase(url, logger, options.poolSize, options.onQueryError);
  const shutdown = async () => {
    await database.close();
    await embedded?.stop();
  };
  try {
    if (options.migrate) {
      const applied = await migrate(database.pool);
      logger.info({ applied }, applied.length ? 'migrations applied' : 'database schema up to date');
    } else if (options.migrate === false) {
      await warnAboutPendingMigrations(database, logger);
    }
  } catch (error) {
    await shutdown();
    throw error;
  }
  return { ...database, url, embedded: Boolean(embedded), shutdown };
}

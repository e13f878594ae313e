import type { Config } from '../config/load.js';
import { createLogger } from '../core/logger.js';
import { connect } from '../db/connect.js';
import { migrate, migrationStatus } from '../db/migrator.js';

/** `cdn migrate [--status]`: applies pending migrations, or lists each migration's state. */
export async function runMigrate(config: Config, statusOnly: boolean): Promise<void> {
  const logger = createLogger({ logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel });
  const connection = await connect(config, logger, { poolSize: 2 });
  try {
    if (statusOnly) {
      const states = await migrationStatus(connection.pool);
      for (const state of states) {
        process.stdout.write(`${state.state.padEnd(8)} ${state.name}${state.applied_at ? `  (${state.applied_at.toISOString()})` : ''}\n`);
      }
      const pending = states.filter((state) => state.state === 'pending').length;
      process.stdout.write(`${states.length - pending} applied, ${pending} pending\n`);
      return;
    }
    const applied = await migrate(connection.pool);
    for (const name of applied) process.stdout.write(`applied ${name}\n`);
    process.stdout.write(applied.length ? `${applied.length} migration(s) applied\n` : 'database schema is up to date\n');
  } finally {
    await connection.shutdown();
  }
}

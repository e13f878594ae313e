import type { Config } from '../config/load.js';
import { createLogger } from '../core/logger.js';
import { startCore } from '../core/start.js';

/** `cdn core`: serves until SIGINT/SIGTERM, then stops the server and any embedded database cleanly. */
export async function runCore(config: Config): Promise<void> {
  const logger = createLogger(config);
  const core = await startCore(config, logger);
  if (config.bootstrapAdminUser) {
    process.stdout.write(
      `\ncore ready at ${core.url}\nadmin login: username=${config.bootstrapAdminUsername} password=${config.bootstrapAdminPassword}\n` +
        `  curl -s -X POST ${core.url}/api/v1/admin/login -H 'content-type: application/json' -d '{"username":"${config.bootstrapAdminUsername}","password":"…"}'\n\n`,
    );
  }
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    core.stop().then(
      () => process.exit(0),
      (error: Error) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

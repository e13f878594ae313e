import type { Config } from '../config/load.js';
import { createLogger } from '../core/logger.js';
import { startCore } from '../core/start.js';

/**
 * `cdn core`: serves until SIGINT/SIGTERM, then stops the server and any embedded
 * database cleanly. `banner` may print a greeting once the core listens.
 */
export async function runCore(config: Config, banner?: (url: string) => string): Promise<void> {
  const logger = createLogger(config);
  const core = await startCore(config, logger);
  if (banner) process.stdout.write(banner(core.url));
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

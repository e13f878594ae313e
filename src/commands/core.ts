import type { Config } from '../config/load.js';
import { createLogger } from '../core/logger.js';
import { startCore } from '../core/start.js';

const SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * `cdn core`: serves until SIGINT/SIGTERM/SIGHUP, then stops the server and any embedded
 * database cleanly (and runs `beforeExit`, e.g. stopping a local edge). `banner` may print a
 * greeting once the core listens. Resolves with the core's URL.
 */
export async function runCore(config: Config, banner?: (url: string) => string, beforeExit?: () => Promise<void>): Promise<string> {
  const logger = createLogger(config);
  const core = await startCore(config, logger);
  if (banner) process.stdout.write(banner(core.url));
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    Promise.all([core.stop(), beforeExit?.()]).then(
      () => process.exit(0),
      (error: Error) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  for (const signal of SHUTDOWN_SIGNALS) process.once(signal, () => shutdown(signal));
  return core.url;
}

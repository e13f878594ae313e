import type { Logger } from 'pino';
import type { Config } from '../config/load.js';
import { createLogger } from '../core/logger.js';
import { ApiClient } from '../gitops/api-client.js';
import { GitopsController } from '../gitops/controller.js';
import { configuredCredentials } from '../gitops/git-access.js';
import { sourceFor } from '../gitops/source.js';
import { waitAndReport, waitSeconds } from '../gitops/rollout-wait.js';

export type ReconcileOptions = { repo: string; branch: string; path: string; interval: string; url?: string; token?: string; once?: boolean; wait?: string | boolean };

/**
 * `cdn reconcile --repo R`: the GitOps controller as its own process, talking to
 * the core only through its REST API, until SIGINT/SIGTERM. `--once` reconciles
 * a single time and exits 1 unless the run applied or found nothing to change; with
 * `--wait` it then waits until every pool edge serves the result (exit 5 on timeout).
 */
export async function runReconcile(config: Config, options: ReconcileOptions): Promise<void> {
  const logger = createLogger(config, 'cdn-reconcile');
  const interval = Number(options.interval);
  if (!Number.isInteger(interval) || interval < 1) throw new Error(`--interval must be a whole number of seconds, got ${options.interval}`);
  if (options.wait !== undefined && !options.once) throw new Error('--wait goes with --once');
  const seconds = options.wait === undefined ? undefined : waitSeconds(options.wait);
  const client = new ApiClient(options.url ?? process.env.CDN_API_URL ?? `http://127.0.0.1:${config.corePort}`, options.token ?? config.apiToken);
  const source = sourceFor(options.repo, options.branch, options.path, config.dataDir, configuredCredentials(config));
  const controller = new GitopsController({ source, client, intervalMs: interval * 1000, logger, holdProcess: true });
  if (options.once) {
    await controller.restore();
    const report = await controller.reconcileNow('manual');
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    if (report.status !== 'applied' && report.status !== 'no_changes') process.exitCode = 1;
    else if (seconds !== undefined) process.exitCode = await waitAndReport(client, report.config_change, seconds);
    return;
  }
  controller.start();
  logger.info({ repo: source.label, branch: options.branch, interval }, 'gitops controller started');
  stopOnSignals(controller, logger);
}

const STOP_GRACE_MS = 20000;

/**
 * On SIGINT/SIGTERM: no new reconciles, the one in progress may finish (for up to
 * STOP_GRACE_MS), then exit 0. A run cut short by the deadline or by a second signal
 * is safe to abandon: every reconcile re-reads git and the live state from scratch.
 */
function stopOnSignals(controller: GitopsController, logger: Logger): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'gitops controller stopped, abandoning the reconcile in progress');
      process.exit(0);
    }
    stopping = true;
    logger.info({ signal }, 'gitops controller stopping');
    const deadline = setTimeout(() => {
      logger.warn({ graceMs: STOP_GRACE_MS }, 'gitops controller stopped, abandoning the reconcile in progress');
      process.exit(0);
    }, STOP_GRACE_MS);
    void controller.stop().then(() => {
      clearTimeout(deadline);
      logger.info('gitops controller stopped');
      process.exit(0);
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

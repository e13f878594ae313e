import type { Config } from '../../config/load.js';
import type { Db } from '../../db/client.js';
import { unixSeconds } from '../../http/timestamps.js';

/**
 * What readiness shows of the SSL scheduler, read from the jobs (so every core tells the same):
 * whether ACME is configured, jobs per active status, the lag of the oldest job due, and the
 * newest failure.
 */
export async function sslSchedulerStatus(db: Db, config: Config, now = new Date()) {
  const [queued, running, oldestDue, lastFailure] = await Promise.all([
    db.sslJob.count({ where: { status: 'queued' } }),
    db.sslJob.count({ where: { status: 'running' } }),
    db.sslJob.findFirst({ where: { status: 'queued', run_after: { lte: now } }, orderBy: { run_after: 'asc' }, select: { run_after: true } }),
    db.sslJob.findFirst({ where: { status: 'failed' }, orderBy: { finished_at: 'desc' }, select: { id: true, domain_id: true, last_error: true, finished_at: true } }),
  ]);
  return {
    acme: config.sslAcmeDirectoryUrl ? { directory_url: config.sslAcmeDirectoryUrl } : 'not configured: set CDN_SSL_ACME_DIRECTORY_URL',
    interval_seconds: config.sslSchedulerIntervalSeconds,
    queued,
    running,
    lag_seconds: oldestDue ? Math.max(0, Math.floor((now.getTime() - oldestDue.run_after.getTime()) / 1000)) : 0,
    last_failure: lastFailure ? { job_id: lastFailure.id, domain_id: lastFailure.domain_id, error: lastFailure.last_error, at: unixSeconds(lastFailure.finished_at) } : null,
  };
}

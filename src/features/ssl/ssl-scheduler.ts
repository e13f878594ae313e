// The SSL job scheduler: every CDN_SSL_SCHEDULER_INTERVAL_SECONDS each core reclaims jobs whose
// core stopped, queues the renewals that are due, and runs queued jobs it claims with
// FOR UPDATE SKIP LOCKED, so of several cores exactly one runs a job (docs/ssl.md, "Jobs").
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../../config/load.js';
import type { Db } from '../../db/client.js';
import { LOCK_KEYS } from '../../db/advisory-lock.js';
import { inTransaction } from '../../db/transaction.js';
import { accountClient, forgetAccount } from './acme/acme-account.js';
import { configureAcme } from './acme/acme-connection.js';
import { storeAcmeCertificate } from './acme/acme-certificates.js';
import type { ChallengeType } from './acme/acme-challenges.js';
import { orderCertificate, type IssuedCertificate, type OrderRequest } from './acme/acme-order.js';
import { checkRenewalInfo } from './acme/renewal-info.js';
import { checkDueRenewalInfo, replacedCertificateId } from './acme/renewal-info-checks.js';
import { errorLine, isAccountGone, isRateLimit, MAX_ATTEMPTS, retryDecision } from './acme/acme-problem.js';
import { servedHostnames } from './certificates.js';
import type { SecretBox } from './secret-box.js';

export type SchedulerDeps = {
  db: Db;
  pool: pg.Pool;
  config: Config;
  box: SecretBox | undefined;
  logger: Logger;
  /** Names this core in locked_by. */
  coreId: string;
  /** A running job whose core has not touched it for this long is reclaimed (its core stopped). */
  staleAfterMs?: number;
  now?: () => Date;
};

type ClaimedJob = { id: string; domain_id: string; kind: string; hostnames: string[]; challenge: ChallengeType | null; attempts: number; certificate_id: string | null };

const STALE_AFTER_MS = 5 * 60 * 1000;
const TOUCH_EVERY_MS = 30_000;
const JOBS_PER_ROUND = 10;
const RENEWAL_RETRY_MIN_MS = 10 * 60 * 1000;
const RENEWAL_RETRY_MAX_MS = 6 * 3600 * 1000;

const CLAIM = `
  UPDATE ssl_jobs SET status = 'running', locked_at = $1, locked_by = $2, attempts = attempts + 1, updated_at = $1
  WHERE id = (SELECT id FROM ssl_jobs WHERE status = 'queued' AND run_after <= $1 ORDER BY run_after, created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
  RETURNING id, domain_id, kind, hostnames, challenge, attempts, certificate_id`;

// A stale job goes back to the queue after the backoff its attempts earned, or fails once it used them all.
const RECLAIM = `
  UPDATE ssl_jobs SET
    status = CASE WHEN attempts >= $3 THEN 'failed' ELSE 'queued' END,
    finished_at = CASE WHEN attempts >= $3 THEN $1::timestamptz ELSE NULL END,
    run_after = $1::timestamptz + make_interval(secs => LEAST(3600, 60 * power(2, GREATEST(attempts - 1, 0)))),
    last_error = 'the core running it (' || coalesce(locked_by, '?') || ') stopped before it finished',
    locked_at = NULL, locked_by = NULL, updated_at = $1
  WHERE status = 'running' AND locked_at < $2
  RETURNING id, status`;

// Renewals due (renew_after passed) for active ACME certificates of active domains with no renewal waiting or running.
const QUEUE_RENEWALS = `
  INSERT INTO ssl_jobs (domain_id, kind, status, hostnames, certificate_id, run_after, created_at, updated_at)
  SELECT c.domain_id, 'renew', 'queued', c.hostnames, c.id, $1, $1, $1 FROM ssl_certificates c JOIN domains d ON d.id = c.domain_id
  WHERE c.source = 'acme' AND c.status = 'active' AND c.renew_after <= $1 AND d.status = 'active'
    AND NOT EXISTS (SELECT 1 FROM ssl_jobs j WHERE j.certificate_id = c.id AND j.kind = 'renew' AND j.status IN ('queued', 'running'))
  RETURNING id`;

/** Queues the renewals that are due; one core at a time (a transaction advisory lock), so none is queued twice. */
export async function queueDueRenewals(pool: pg.Pool, now: Date): Promise<number> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS locked', [LOCK_KEYS.sslRenewalScan]);
    if (!rows[0].locked) return 0;
    return (await client.query(QUEUE_RENEWALS, [now])).rowCount ?? 0;
  });
}

/** Puts running jobs whose core stopped touching them back in the queue (or fails them after MAX_ATTEMPTS). */
export async function reclaimStaleJobs(pool: pg.Pool, now: Date, staleAfterMs: number): Promise<{ id: string; status: string }[]> {
  return (await pool.query<{ id: string; status: string }>(RECLAIM, [now, new Date(now.getTime() - staleAfterMs), MAX_ATTEMPTS])).rows;
}

async function claim(pool: pg.Pool, coreId: string, now: Date): Promise<ClaimedJob | undefined> {
  return (await pool.query<ClaimedJob>(CLAIM, [now, coreId])).rows[0];
}

// A renewal that failed for good is tried again later, long before expiry: a tenth of the time left, within bounds.
async function postponeRenewal(db: Db, certificateId: string, now: Date): Promise<void> {
  const certificate = await db.sslCertificate.findUnique({ where: { id: certificateId }, select: { not_after: true } });
  const left = (certificate?.not_after?.getTime() ?? now.getTime()) - now.getTime();
  const delay = Math.min(RENEWAL_RETRY_MAX_MS, Math.max(RENEWAL_RETRY_MIN_MS, left / 10));
  await db.sslCertificate.update({ where: { id: certificateId }, data: { renew_after: new Date(now.getTime() + delay) } });
}

/** A job that must not run any more: its domain is no longer active. */
class JobCancelled extends Error {}

// An order under the directory's account. A CA that no longer knows the account (pebble restarted, a
// staging CA reset) gets the key registered again and the order sent once more, in the same run.
async function orderWithAccount(deps: SchedulerDeps, request: OrderRequest, again = true): Promise<IssuedCertificate> {
  const { db, config, box } = deps;
  const client = await accountClient(db, box!, config.sslAcmeDirectoryUrl, config.sslAcmeEmail);
  try {
    return await orderCertificate(db, config, client, request);
  } catch (error) {
    if (!again || !isAccountGone(error)) throw error;
    await forgetAccount(db, config.sslAcmeDirectoryUrl, client.getAccountUrl(), errorLine(error));
    return orderWithAccount(deps, request, false);
  }
}

async function issue(deps: SchedulerDeps, job: ClaimedJob): Promise<string> {
  const { db, config, box } = deps;
  const domain = await db.domain.findUniqueOrThrow({ where: { id: job.domain_id }, select: { domain: true, status: true } });
  if (domain.status !== 'active') throw new JobCancelled(`cancelled: the domain is ${domain.status}, and only active domains get certificates`);
  const proxied = new Set(await servedHostnames(db, job.domain_id, domain.domain));
  const renewed = job.kind === 'renew' ? job.certificate_id : null;
  const replaces = renewed ? await replacedCertificateId(deps.pool, renewed) : undefined;
  const issued = await orderWithAccount(deps, { jobId: job.id, domainId: job.domain_id, hostnames: job.hostnames, challenge: job.challenge, proxied, replaces });
  const renewal = await checkRenewalInfo(config.sslAcmeDirectoryUrl, issued.certificatePem);
  return storeAcmeCertificate(db, box!, job.domain_id, issued, renewed, renewal);
}

async function finish(deps: SchedulerDeps, job: ClaimedJob, outcome: { certificateId: string } | { error: unknown }): Promise<void> {
  const now = deps.now?.() ?? new Date();
  const mine = { id: job.id, locked_by: deps.coreId, status: 'running' };
  if ('certificateId' in outcome) {
    await deps.db.sslJob.updateMany({ where: mine, data: { status: 'succeeded', certificate_id: outcome.certificateId, last_error: null, finished_at: now, locked_at: null, locked_by: null } });
    deps.logger.info({ jobId: job.id, domainId: job.domain_id, kind: job.kind, certificateId: outcome.certificateId }, 'ssl job succeeded');
    return;
  }
  const lastError = errorLine(outcome.error);
  if (outcome.error instanceof JobCancelled) {
    await deps.db.sslJob.updateMany({ where: mine, data: { status: 'cancelled', last_error: lastError, finished_at: now, locked_at: null, locked_by: null } });
    deps.logger.info({ jobId: job.id, domainId: job.domain_id, kind: job.kind, reason: lastError }, 'ssl job cancelled');
    return;
  }
  const decision = retryDecision(outcome.error, job.attempts);
  // A rate limit is the CA asking to wait, not a failure: the attempt is given back.
  const attempts = isRateLimit(outcome.error) ? job.attempts - 1 : job.attempts;
  if (decision.retry) {
    await deps.db.sslJob.updateMany({ where: mine, data: { status: 'queued', attempts, last_error: lastError, run_after: new Date(now.getTime() + decision.delaySeconds * 1000), locked_at: null, locked_by: null } });
    deps.logger.warn({ jobId: job.id, domainId: job.domain_id, kind: job.kind, error: lastError, retryInSeconds: decision.delaySeconds }, 'ssl job failed; retried later');
    return;
  }
  await deps.db.sslJob.updateMany({ where: mine, data: { status: 'failed', attempts, last_error: lastError, finished_at: now, locked_at: null, locked_by: null } });
  if (job.kind === 'renew' && job.certificate_id) await postponeRenewal(deps.db, job.certificate_id, now);
  deps.logger.warn({ jobId: job.id, domainId: job.domain_id, kind: job.kind, error: lastError }, 'ssl job failed');
}

// Runs a claimed job, touching its lock while it runs so no other core takes it for stale.
async function runJob(deps: SchedulerDeps, job: ClaimedJob): Promise<void> {
  const touch = setInterval(() => {
    deps.db.sslJob.updateMany({ where: { id: job.id, locked_by: deps.coreId, status: 'running' }, data: { locked_at: new Date() } }).catch(() => undefined);
  }, TOUCH_EVERY_MS);
  try {
    const certificateId = await issue(deps, job);
    await finish(deps, job, { certificateId });
  } catch (error) {
    await finish(deps, job, { error });
  } finally {
    clearInterval(touch);
  }
}

/** Whether this core can run ACME jobs: a directory to order from and a key to seal certificate keys with. */
export function acmeReady(config: Config, box: SecretBox | undefined): boolean {
  return Boolean(config.sslAcmeDirectoryUrl && box);
}

/** One round: reclaim stale jobs, drop expired challenges, ask the CA about due renewal windows, queue due renewals, run up to 10 queued jobs. Returns the jobs it ran. */
export async function schedulerRound(deps: SchedulerDeps): Promise<number> {
  const now = () => deps.now?.() ?? new Date();
  const reclaimed = await reclaimStaleJobs(deps.pool, now(), deps.staleAfterMs ?? STALE_AFTER_MS);
  if (reclaimed.length) deps.logger.warn({ jobs: reclaimed }, 'stale ssl jobs reclaimed');
  // Challenges a stopped core left behind are answered no longer; their rows go too.
  await deps.db.acmeChallenge.deleteMany({ where: { expires_at: { lt: now() } } });
  if (!acmeReady(deps.config, deps.box)) return 0;
  configureAcme(deps.config.sslAcmeCaFile);
  const moved = await checkDueRenewalInfo(deps.pool, deps.config.sslAcmeDirectoryUrl, now());
  if (moved) deps.logger.info({ certificates: moved }, 'renewal times moved by the CA\'s renewal information');
  const queued = await queueDueRenewals(deps.pool, now());
  if (queued) deps.logger.info({ queued }, 'ssl renewals queued');
  let ran = 0;
  for (; ran < JOBS_PER_ROUND; ran++) {
    const job = await claim(deps.pool, deps.coreId, now());
    if (!job) break;
    await runJob(deps, job);
  }
  return ran;
}

/** Starts the scheduler loop; the returned function stops it, waiting for a round under way. */
export function startSslScheduler(deps: SchedulerDeps): () => Promise<void> {
  let running: Promise<void> | undefined;
  let stopped = false;
  const round = () => {
    if (stopped) return;
    running ??= schedulerRound(deps)
      .then(() => undefined, (error: Error) => deps.logger.warn({ err: error.message }, 'ssl scheduler round failed'))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(round, deps.config.sslSchedulerIntervalSeconds * 1000);
  timer.unref();
  setImmediate(round);
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}

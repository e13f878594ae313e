/**
 * The SSL job statuses after which a job never runs again. Only these are pruned
 * after CDN_SSL_JOB_RETENTION_DAYS; every other status (queued, running, or one a
 * later version adds) counts as active and is never pruned.
 */
export const SSL_JOB_TERMINAL_STATUSES = ['succeeded', 'failed', 'cancelled'] as const;

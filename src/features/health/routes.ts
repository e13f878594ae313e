import type { AppDeps } from '../../http/app.js';
import { Reply, type Route } from '../../http/route.js';
import { pingDatabase } from '../../db/ping.js';
import { migrationStatus, pendingNames, type MigrationState } from '../../db/migrator.js';
import { sslSchedulerStatus } from '../ssl/scheduler-status.js';
import { retentionStatus } from '../../core/retention-state.js';
import { secretBoxOf } from '../ssl/key-storage.js';
import { dnsHealth } from '../../publish/dns/dns-health.js';
import { describeMigrationsCheck, migrationsCheck, type MigrationsCheck } from './migrations-check.js';

/** The core's version, as its health answers and its OpenAPI document say. */
export const CORE_VERSION = '0.1.0';
const now = () => Math.floor(Date.now() / 1000);

/** Health (liveness), readiness (database) and the authenticated readiness detail. */
export function healthRoutes(deps: AppDeps): Route[] {
  const startedAt = Date.now();
  const keyStorage = sslKeyStorageStatus(deps.config);
  // Public answers say only ok or fail: the reason of a failure names the database host and port,
  // which only authenticated callers of /api/v1/readiness get to see.
  // Ready: the database answers and holds every migration this core ships.
  const migrationsCurrent = migrationsCheck(deps.pool);
  const readiness = async () => {
    const database = await pingDatabase(deps.pool);
    const migrations: MigrationsCheck | undefined = database.ok ? await migrationsCurrent() : undefined;
    const status = database.ok && migrations?.ok ? ('ok' as const) : ('fail' as const);
    const checks = { database: database.ok ? ('ok' as const) : ('fail' as const), migrations: migrations === undefined ? ('unknown' as const) : migrations.ok ? ('ok' as const) : ('fail' as const) };
    return { status, checks, database, migrations };
  };
  return [
    { method: 'get', path: '/health', response: 'health-answer', auth: 'public', handler: async () => ({ ok: true, time: now() }) },
    {
      method: 'get',
      path: '/cdn-health',
      response: 'cdn-health-answer',
      auth: 'public',
      handler: async () => {
        const { checks } = await readiness();
        const reachable = checks.database === 'ok';
        // Counts only: zone names and errors are for authenticated callers (/api/v1/readiness, the overview).
        const dns = reachable ? await dnsHealth(deps.prisma, deps.config).catch(() => undefined) : undefined;
        return { ok: true, time: now(), api: { ok: true, version: CORE_VERSION }, database: { ok: reachable }, dns: dns ?? { publishing: deps.config.powerdnsApiUrl ? 'on' : 'off', ok: false }, checks };
      },
    },
    {
      method: 'get',
      path: '/ready',
      response: 'ready-answer',
      auth: 'public',
      handler: async () => {
        const { status, checks } = await readiness();
        return new Reply(status === 'ok' ? 200 : 503, { status, checks });
      },
    },
    {
      method: 'get',
      path: '/api/v1/readiness',
      response: 'readiness-answer',
      auth: 'api',
      handler: async () => {
        const { status, database, migrations: current } = await readiness();
        const checks = { database: database.ok ? 'ok' : `fail: ${database.error}`, migrations: current ? describeMigrationsCheck(current) : 'unknown' };
        const migrations = database.ok ? await migrationStatus(deps.pool).catch((error: Error) => error.message) : 'unknown';
        const retention = database.ok ? await retentionStatus(deps.prisma, deps.config).catch((error: Error) => error.message) : 'unknown';
        const dns = database.ok ? await dnsHealth(deps.prisma, deps.config).catch((error: Error) => error.message) : 'unknown';
        const sslJobs = database.ok ? await sslSchedulerStatus(deps.prisma, deps.config).catch((error: Error) => error.message) : 'unknown';
        return {
          status,
          checks,
          version: CORE_VERSION,
          uptime_seconds: Math.floor((Date.now() - startedAt) / 1000),
          database: { ...database, migrations: Array.isArray(migrations) ? summarize(migrations) : migrations },
          retention,
          dns: typeof dns === 'string' ? dns : { ...dns, loop: deps.dns?.loop?.status() ?? null },
          ssl: keyStorage,
          ssl_jobs: sslJobs,
        };
      },
    },
  ];
}

// Whether certificate keys can be stored, and under which key (the id reveals nothing of the key).
function sslKeyStorageStatus(config: AppDeps['config']) {
  const box = secretBoxOf(config);
  return box ? { key_storage: 'configured', key_id: box.keyId } : { key_storage: 'not configured: set CDN_SSL_SECRET_KEY', key_id: null };
}

function summarize(states: MigrationState[]) {
  return { applied: states.filter((s) => s.state === 'applied').length, pending: pendingNames(states) };
}

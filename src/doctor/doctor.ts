// `cdn doctor`: the checks in the order an operator makes them before going live (docs/doctor.md).
// Each is bounded in time and never throws: whatever goes wrong becomes its failed line.
import pino from 'pino';
import { configProblems, loadConfig, type Config } from '../config/load.js';
import { openDatabase, type Database } from '../db/client.js';
import { acmeCheck } from './acme-check.js';
import { checkLine, type CheckResult } from './check-result.js';
import { configCheck, defaultsCheck, secretsCheck } from './config-checks.js';
import { databaseCheck, nameserversCheck } from './database-checks.js';
import { edgesCheck } from './edges-check.js';
import { gitopsCheck } from './gitops-check.js';
import { dnsZonesCheck, powerdnsCheck } from './powerdns-checks.js';

/** Every check's name, in the order doctor prints them; each appears in every run, if only as skipped. */
export const CHECK_NAMES = ['config', 'defaults', 'secrets', 'database', 'nameservers', 'powerdns', 'dns-zones', 'acme', 'edges', 'gitops'] as const;

/** `timeoutMs` bounds each network call; a whole check gets that plus CHECK_MARGIN_MS. */
export type DoctorOptions = { timeoutMs: number };

const CHECK_MARGIN_MS = 2000;

type CheckWork = () => Promise<CheckResult | CheckResult[]> | CheckResult | CheckResult[];

/** Runs one check within its deadline; an error or the deadline becomes a failed line of that check. */
async function bounded(check: string, timeoutMs: number, work: CheckWork): Promise<CheckResult[]> {
  const deadlineMs = timeoutMs + CHECK_MARGIN_MS;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<CheckResult>((resolve) => {
    timer = setTimeout(() => resolve(checkLine(check, 'fail', `no answer within ${deadlineMs / 1000} s`, 'see what it waits for (the lines above, the service it checks)')), deadlineMs);
  });
  try {
    const outcome = await Promise.race([Promise.resolve().then(work), deadline]);
    return Array.isArray(outcome) ? outcome : [outcome];
  } catch (error) {
    return [checkLine(check, 'fail', `the check failed: ${(error as Error).message}`)];
  } finally {
    clearTimeout(timer);
  }
}

function skipped(checks: readonly string[], why: string): CheckResult[] {
  return checks.map((check) => checkLine(check, 'skip', why));
}

/** The database the checks share, and (when they cannot use it) why, for their skipped lines. */
type DatabaseState = { database?: Database; reachable: boolean; unavailable: string };

async function databaseLines(config: Config, options: DoctorOptions, state: DatabaseState): Promise<CheckResult[]> {
  if (!state.database) {
    return [checkLine('database', 'skip', 'DATABASE_URL is not set: the core would run an embedded PostgreSQL, which doctor does not start', 'set DATABASE_URL to check the database the cores use')];
  }
  const lines = await bounded('database', options.timeoutMs, async () => {
    const outcome = await databaseCheck(state.database!.pool, options.timeoutMs);
    state.reachable = outcome.reachable;
    return outcome.result;
  });
  const nameservers = state.reachable ? await bounded('nameservers', options.timeoutMs, () => nameserversCheck(state.database!.prisma, config)) : skipped(['nameservers'], state.unavailable);
  return [...lines, ...nameservers];
}

async function dnsLines(config: Config, options: DoctorOptions, state: DatabaseState): Promise<CheckResult[]> {
  const powerdns = await bounded('powerdns', options.timeoutMs, () => powerdnsCheck(config, options.timeoutMs));
  if (powerdns[0].status !== 'ok') return [...powerdns, ...skipped(['dns-zones'], powerdns[0].status === 'skip' ? 'not checked: DNS publishing is off' : 'not checked: PowerDNS is not usable (see the powerdns line)')];
  if (!state.reachable) return [...powerdns, ...skipped(['dns-zones'], state.unavailable)];
  return [...powerdns, ...(await bounded('dns-zones', options.timeoutMs, () => dnsZonesCheck(state.database!.prisma, config, options.timeoutMs)))];
}

async function fleetLines(config: Config, options: DoctorOptions, state: DatabaseState): Promise<CheckResult[]> {
  const edges = state.reachable ? await bounded('edges', options.timeoutMs, () => edgesCheck(state.database!.prisma, state.database!.pool, config)) : skipped(['edges'], state.unavailable);
  const gitops = await bounded('gitops', options.timeoutMs, () => gitopsCheck(state.reachable ? state.database!.prisma : undefined, config, options.timeoutMs));
  return [...edges, ...gitops];
}

async function closeWithin(database: Database | undefined, ms: number): Promise<void> {
  if (!database) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([database.close().catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** Runs every check against `env` (the environment the cores and edges run with); one or more lines per check, in CHECK_NAMES order. */
export async function runChecks(env: NodeJS.ProcessEnv, options: DoctorOptions): Promise<CheckResult[]> {
  const problems = configProblems(env);
  const lines = configCheck(env, problems);
  if (problems.length) return [...lines, ...skipped(CHECK_NAMES.slice(1), 'not checked: the configuration does not load')];
  const config = loadConfig(env);
  lines.push(...defaultsCheck(config), ...secretsCheck(config));
  const database = config.databaseUrl ? openDatabase(config.databaseUrl, pino({ level: 'silent' }), 2) : undefined;
  const state: DatabaseState = { database, reachable: false, unavailable: database ? 'not checked: the database is not reachable' : 'not checked: DATABASE_URL is not set' };
  try {
    lines.push(...(await databaseLines(config, options, state)));
    lines.push(...(await dnsLines(config, options, state)));
    lines.push(...(await bounded('acme', options.timeoutMs, () => acmeCheck(config, options.timeoutMs))));
    lines.push(...(await fleetLines(config, options, state)));
    return lines;
  } finally {
    await closeWithin(state.database, options.timeoutMs);
  }
}

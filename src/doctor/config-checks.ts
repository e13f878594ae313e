// The checks that read the environment only: every variable parses, settings unsafe in
// production are named, and the secrets are set (docs/doctor.md).
import type { Config } from '../config/load.js';
import { VARIABLES } from '../config/variables.js';
import { clearanceSecretProblem } from '../edge/clearance-secret.js';
import { urlCredentials } from '../shared/url-credentials.js';
import { checkLine, someOf, unsafeStatus, type CheckResult, type CheckStatus } from './check-result.js';

// Read by the commands that call the REST API (plan, apply, status…), not part of the server's table.
const CLIENT_VARIABLES = new Set(['CDN_API_URL']);

/** CDN_* names in `env` this version reads nowhere: most often a typo of a real one. */
export function unknownVariables(env: NodeJS.ProcessEnv): string[] {
  const known = new Set<string>([...Object.values(VARIABLES).map((variable) => variable.env), ...CLIENT_VARIABLES]);
  return Object.keys(env)
    .filter((name) => name.startsWith('CDN_') && !known.has(name))
    .sort();
}

/** `config`: every reason the configuration does not load (configProblems), then names nobody reads. */
export function configCheck(env: NodeJS.ProcessEnv, problems: string[]): CheckResult[] {
  const lines = problems.map((problem) => checkLine('config', 'fail', problem, 'fix the variable (docs/configuration.md lists each with its type and range)'));
  const unknown = unknownVariables(env);
  if (unknown.length) lines.push(checkLine('config', 'warn', `${someOf(unknown)} ${unknown.length === 1 ? 'is' : 'are'} set but read by nothing`, 'check the spelling against docs/configuration.md, or remove it'));
  if (lines.length === 0) lines.push(checkLine('config', 'ok', `all ${Object.keys(VARIABLES).length} variables parse (CDN_ENV=${env.CDN_ENV || VARIABLES.env.default})`));
  return lines;
}

type UnsafeSetting = { variable: string; problem: string; fix: string; status: CheckStatus };

function unsafeSettings(config: Config): UnsafeSetting[] {
  const severe = unsafeStatus(config);
  const settings: (UnsafeSetting | false)[] = [
    config.env !== 'production' && { variable: 'CDN_ENV', problem: 'CDN_ENV is development: snapshot, cache, telemetry and body limits are the small development ones', fix: 'set CDN_ENV=production', status: 'warn' },
    !config.databaseUrl && { variable: 'DATABASE_URL', problem: 'DATABASE_URL is not set: the core runs an embedded PostgreSQL under CDN_DATA_DIR, on this machine only', fix: 'set DATABASE_URL to a PostgreSQL every core shares (a managed service or a Patroni cluster)', status: severe },
    !config.apiToken && { variable: 'CDN_API_TOKEN', problem: 'CDN_API_TOKEN is not set: every control-plane endpoint answers without a bearer', fix: 'set CDN_API_TOKEN to a long random value (openssl rand -hex 32) on every core', status: severe },
    config.bootstrapAdminUser && { variable: 'CDN_BOOTSTRAP_ADMIN_USER', problem: 'CDN_BOOTSTRAP_ADMIN_USER is on: an admin with a password from the environment is made at start', fix: 'create admins with `cdn admin create` and set CDN_BOOTSTRAP_ADMIN_USER=false', status: severe },
    Boolean(config.bootstrapEdgeToken && config.bootstrapEdgeToken !== '0') && { variable: 'CDN_BOOTSTRAP_EDGE_TOKEN', problem: 'CDN_BOOTSTRAP_EDGE_TOKEN is set: a shared edge token from the environment is registered at start', fix: 'give each edge its own token (`cdn edge-token create`), set CDN_BOOTSTRAP_EDGE_TOKEN=0 and revoke the bootstrap token (`cdn edge-token revoke`)', status: severe },
    Boolean(config.gitopsRepo && urlCredentials(config.gitopsRepo)) && { variable: 'CDN_GITOPS_REPO', problem: 'CDN_GITOPS_REPO carries credentials in its URL', fix: 'move the token to CDN_GITOPS_REPO_TOKEN_FILE (a mounted secret) and drop it from the URL', status: 'warn' },
    config.storeFullClientIp && { variable: 'CDN_STORE_FULL_CLIENT_IP', problem: 'CDN_STORE_FULL_CLIENT_IP is on: full client addresses are stored', fix: 'keep it only if your privacy policy allows it; off stores keyed hashes', status: 'warn' },
    !config.retentionPruneEnabled && { variable: 'CDN_RETENTION_PRUNE_ENABLED', problem: 'CDN_RETENTION_PRUNE_ENABLED is off: usage, security and DNS events are kept for ever', fix: 'set CDN_RETENTION_PRUNE_ENABLED=true (the *_RETENTION_DAYS say how long)', status: 'warn' },
  ];
  return settings.filter((setting): setting is UnsafeSetting => setting !== false);
}

/** `defaults`: settings left at a value that is fine on a laptop and wrong for a live installation. */
export function defaultsCheck(config: Config): CheckResult[] {
  const unsafe = unsafeSettings(config);
  if (unsafe.length === 0) return [checkLine('defaults', 'ok', 'no production-unsafe setting')];
  return unsafe.map((setting) => checkLine('defaults', setting.status, setting.problem, setting.fix));
}

function secretProblems(config: Config): CheckResult[] {
  const lines: CheckResult[] = [];
  // The overview warns of the same (ssl_key_storage_not_configured); the key's format is checked by loadConfig.
  if (!config.sslSecretKey) lines.push(checkLine('secrets', unsafeStatus(config), 'CDN_SSL_SECRET_KEY is not set: no certificate private key can be stored, so nothing is served over HTTPS', 'set it on every core to the base64 of 32 random bytes (openssl rand -base64 32)'));
  const clearance = clearanceSecretProblem(config);
  if (clearance) lines.push(checkLine('secrets', 'fail', `cdn edge refuses to start: ${clearance}`, 'set CDN_EDGE_CLEARANCE_SECRET to 32 or more random characters (openssl rand -base64 32), the same on every edge'));
  else if (!config.edgeClearanceSecret) lines.push(checkLine('secrets', 'warn', 'CDN_EDGE_CLEARANCE_SECRET is not set: each edge makes its own, so a clearance from one edge is not honoured by another', 'set the same CDN_EDGE_CLEARANCE_SECRET (openssl rand -base64 32) on every edge'));
  if (!config.clientIpHashKey) lines.push(checkLine('secrets', 'warn', 'CDN_CLIENT_IP_HASH_KEY is not set: client IPs are hashed with a key kept in the database beside the hashes', 'set CDN_CLIENT_IP_HASH_KEY to 32 or more random characters on every core (hashes made before keep the old key)'));
  return lines;
}

/** `secrets`: CDN_SSL_SECRET_KEY, CDN_EDGE_CLEARANCE_SECRET and CDN_CLIENT_IP_HASH_KEY are set and usable. */
export function secretsCheck(config: Config): CheckResult[] {
  const lines = secretProblems(config);
  return lines.length ? lines : [checkLine('secrets', 'ok', 'CDN_SSL_SECRET_KEY, CDN_EDGE_CLEARANCE_SECRET and CDN_CLIENT_IP_HASH_KEY are set')];
}

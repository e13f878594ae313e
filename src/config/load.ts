import { secretBoxOf } from '../features/ssl/key-storage.js';
import { trustedProxies } from './trusted-proxies.js';
import { VARIABLES, type Profile, type Variable } from './variables.js';

type Table = typeof VARIABLES;
type ValueOf<V> = V extends { kind: 'int' }
  ? number
  : V extends { kind: 'bool' }
    ? boolean
    : V extends { kind: 'enum'; values: readonly (infer T)[] }
      ? T
      : V extends { kind: 'string'; default: string }
        ? string
        : string | undefined;

/** The validated configuration of one process. */
export type Config = { readonly [K in keyof Table]: ValueOf<Table[K]> };

/** A bad environment value; the message is one line naming the variable. */
export class ConfigError extends Error {}

const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on']);
const FALSE_WORDS = new Set(['0', 'false', 'no', 'off']);

function parseInt(variable: Variable & { kind: 'int' }, raw: string): number {
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(`${variable.env}=${JSON.stringify(raw)} is not an integer`);
  const value = Number(raw.trim());
  if (value < variable.min || value > variable.max) {
    throw new ConfigError(`${variable.env}=${raw} is out of range (${variable.min} to ${variable.max})`);
  }
  return value;
}

function parseBool(variable: Variable, raw: string): boolean {
  const word = raw.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  throw new ConfigError(`${variable.env}=${JSON.stringify(raw)} is not a boolean (use true/false or 1/0)`);
}

function parseEnum(variable: Variable & { kind: 'enum' }, raw: string): string {
  const value = raw.trim();
  if (!variable.values.includes(value)) {
    throw new ConfigError(`${variable.env}=${JSON.stringify(raw)} must be one of ${variable.values.join(', ')}`);
  }
  return value;
}

function defaultOf(variable: Variable, profile: Profile): unknown {
  if (variable.kind === 'int' && typeof variable.default === 'object') return variable.default[profile];
  return variable.default;
}

function parseVariable(variable: Variable, raw: string | undefined, profile: Profile): unknown {
  if (raw === undefined || raw === '') return defaultOf(variable, profile);
  switch (variable.kind) {
    case 'int':
      return parseInt(variable, raw);
    case 'bool':
      return parseBool(variable, raw);
    case 'enum':
      return parseEnum(variable, raw);
    case 'string':
      return raw;
  }
}

function profileOf(env: NodeJS.ProcessEnv): Profile {
  return parseEnum(VARIABLES.env, env[VARIABLES.env.env] || VARIABLES.env.default) as Profile;
}

/** Reads every variable of VARIABLES from `env`, applying the spec's defaults; throws ConfigError on the first bad value. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const profile = profileOf(env);
  const config: Record<string, unknown> = {};
  for (const [key, variable] of Object.entries(VARIABLES) as [string, Variable][]) {
    config[key] = parseVariable(variable, env[variable.env], profile);
  }
  checkAcrossVariables(config as Config);
  return Object.freeze(config) as Config;
}

/**
 * Every reason `loadConfig(env)` would refuse `env`, not only the first: one message per badly set
 * variable, then (when each parses) the first rule across variables that fails. Empty when it loads.
 */
export function configProblems(env: NodeJS.ProcessEnv): string[] {
  let profile: Profile;
  try {
    profile = profileOf(env);
  } catch (error) {
    return [(error as Error).message];
  }
  const problems: string[] = [];
  for (const variable of Object.values(VARIABLES) as Variable[]) {
    try {
      parseVariable(variable, env[variable.env], profile);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  if (problems.length) return problems;
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    return [(error as Error).message];
  }
}

function checkAcrossVariables(config: Config): void {
  checkBootstrapAdmin(config);
  checkClientIpHashKey(config);
  checkSslSecretKeys(config);
  checkTrustedProxies(config);
  checkPowerDns(config);
  checkEdgeMetricsDomains(config);
  if (config.gitopsRepoToken && config.gitopsRepoTokenFile) throw new ConfigError('CDN_GITOPS_REPO_TOKEN and CDN_GITOPS_REPO_TOKEN_FILE are both set; keep one');
}

function checkBootstrapAdmin(config: Config): void {
  if (!config.bootstrapAdminUser) return;
  if (!config.bootstrapAdminUsername) throw new ConfigError('CDN_BOOTSTRAP_ADMIN_USERNAME must be set when CDN_BOOTSTRAP_ADMIN_USER is true');
  if (!config.bootstrapAdminPassword || config.bootstrapAdminPassword.length < 8) {
    throw new ConfigError('CDN_BOOTSTRAP_ADMIN_PASSWORD must be at least 8 characters when CDN_BOOTSTRAP_ADMIN_USER is true');
  }
}

function checkTrustedProxies(config: Config): void {
  try {
    trustedProxies(config.apiTrustedProxies);
    trustedProxies(config.edgeTrustedProxies, 'CDN_EDGE_TRUSTED_PROXIES');
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

function checkPowerDns(config: Config): void {
  if (!config.powerdnsApiUrl) return;
  let url: URL;
  try {
    url = new URL(config.powerdnsApiUrl);
  } catch {
    throw new ConfigError(`CDN_POWERDNS_API_URL=${JSON.stringify(config.powerdnsApiUrl)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError('CDN_POWERDNS_API_URL must be an http or https URL');
  // The URL is shown (connection test, logs); the secret belongs in CDN_POWERDNS_API_KEY.
  if (url.username || url.password) throw new ConfigError('CDN_POWERDNS_API_URL must not carry a user or password (PowerDNS takes the key in CDN_POWERDNS_API_KEY)');
  if (!config.powerdnsApiKey) throw new ConfigError('CDN_POWERDNS_API_KEY must be set when CDN_POWERDNS_API_URL is');
  if (!/^[A-Za-z0-9._-]{1,128}$/.test(config.powerdnsServerId)) throw new ConfigError('CDN_POWERDNS_SERVER_ID must be letters, digits, dots, dashes or underscores');
}

/** The most domains CDN_EDGE_METRICS_DOMAINS may name: each adds a few dozen series to every scrape. */
export const MAX_EDGE_METRICS_DOMAINS = 50;

/** The apex domains of CDN_EDGE_METRICS_DOMAINS, lower case, without a trailing dot. */
export function edgeMetricsDomains(config: Pick<Config, 'edgeMetricsDomains'>): string[] {
  return [...new Set(splitList(config.edgeMetricsDomains))];
}

function checkEdgeMetricsDomains(config: Config): void {
  const domains = edgeMetricsDomains(config);
  if (domains.length > MAX_EDGE_METRICS_DOMAINS) throw new ConfigError(`CDN_EDGE_METRICS_DOMAINS names ${domains.length} domains; at most ${MAX_EDGE_METRICS_DOMAINS} are counted apart`);
}

const MIN_HASH_KEY = 32;

function checkClientIpHashKey(config: Config): void {
  if (config.clientIpHashKey !== undefined && config.clientIpHashKey.length < MIN_HASH_KEY) {
    throw new ConfigError(`CDN_CLIENT_IP_HASH_KEY must be at least ${MIN_HASH_KEY} characters`);
  }
}

// A malformed key stops the core at start, not at the first certificate it cannot store or read.
function checkSslSecretKeys(config: Config): void {
  try {
    secretBoxOf(config);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

/** The list of platform nameservers from a comma/space separated value, normalised. */
export function splitList(value: string): string[] {
  return value
    .split(/[\s,]+/)
    .map((item) => item.trim().toLowerCase().replace(/\.$/, ''))
    .filter(Boolean);
}

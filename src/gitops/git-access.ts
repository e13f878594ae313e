import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { Config } from '../config/load.js';
import { VARIABLES } from '../config/variables.js';
import { urlCredentials, withoutUrlCredentials } from '../shared/url-credentials.js';

/**
 * How the controller signs in to the repository it clones, kept out of the repository's name as
 * Argo CD and Flux keep them in secrets: an HTTPS token (sent as Basic with `username`), or an SSH
 * key checked against known hosts (docs/gitops.md, Repository credentials).
 */
export type GitCredentials = { username?: string; token?: string; tokenFile?: string; sshKeyFile?: string; knownHostsFile?: string };

/** A repository as the service names it (no credentials) and how git signs in to it. */
export type RepositoryAccess = { name: string; credentials: GitCredentials };

const run = promisify(execFile);

/** The credentials of the CDN_GITOPS_REPO_* and CDN_GITOPS_*_FILE variables. */
export function configuredCredentials(config: Config): GitCredentials {
  return { username: config.gitopsRepoUsername, token: config.gitopsRepoToken, tokenFile: config.gitopsRepoTokenFile, sshKeyFile: config.gitopsSshKeyFile, knownHostsFile: config.gitopsKnownHostsFile };
}

/**
 * The repository's name without the credentials its URL carries (`https://user:token@host/…`, how CI
 * often spells a private repository), and those credentials moved beside the configured ones.
 */
export function repositoryAccess(url: string, configured: GitCredentials): RepositoryAccess {
  const carried = urlCredentials(url);
  const name = withoutUrlCredentials(url);
  if (!carried) return { name, credentials: configured };
  if (configured.token || configured.tokenFile) throw new Error(`the repository URL ${name} carries credentials and CDN_GITOPS_REPO_TOKEN or CDN_GITOPS_REPO_TOKEN_FILE is set too; keep one`);
  return { name, credentials: { ...configured, username: carried.username, token: carried.password } };
}

async function tokenOf(credentials: GitCredentials): Promise<string | undefined> {
  if (credentials.token !== undefined) return credentials.token;
  if (!credentials.tokenFile) return undefined;
  try {
    return (await readFile(credentials.tokenFile, 'utf8')).trim();
  } catch (error) {
    throw new Error(`could not read CDN_GITOPS_REPO_TOKEN_FILE ${credentials.tokenFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

function shellQuoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

// Never prompts; with a key, offers only that key; with known hosts, trusts only those.
function sshCommand(credentials: GitCredentials): string {
  const options = ['-o BatchMode=yes'];
  if (credentials.sshKeyFile) options.push(`-o IdentitiesOnly=yes -i ${shellQuoted(credentials.sshKeyFile)}`);
  if (credentials.knownHostsFile) options.push(`-o StrictHostKeyChecking=yes -o UserKnownHostsFile=${shellQuoted(credentials.knownHostsFile)}`);
  return `ssh ${options.join(' ')}`;
}

// A setting for this git process only, through the environment (GIT_CONFIG_COUNT/KEY_n/VALUE_n), after any already there.
function addConfig(env: NodeJS.ProcessEnv, key: string, value: string): void {
  const index = Number(env.GIT_CONFIG_COUNT ?? 0) || 0;
  env[`GIT_CONFIG_KEY_${index}`] = key;
  env[`GIT_CONFIG_VALUE_${index}`] = value;
  env.GIT_CONFIG_COUNT = String(index + 1);
}

/**
 * The environment git fetches `url` with: a token as an Authorization header scoped to that URL,
 * an SSH key and known hosts in the ssh command; never on the command line (`ps` shows it to every
 * user) nor in the clone's remote URL (.git/config). Git never prompts.
 */
async function gitEnvironment(url: string, credentials: GitCredentials): Promise<{ env: NodeJS.ProcessEnv; token?: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0' };
  const token = await tokenOf(credentials);
  if (token !== undefined) addConfig(env, `http.${url}.extraHeader`, `Authorization: Basic ${Buffer.from(`${credentials.username ?? VARIABLES.gitopsRepoUsername.default}:${token}`).toString('base64')}`);
  if (credentials.sshKeyFile || credentials.knownHostsFile) env.GIT_SSH_COMMAND = sshCommand(credentials);
  return { env, token };
}

// Git asks for a user name when the server answers 401 and no credentials got through; it must not prompt, so it says so.
function credentialHint(output: string, tokenSent: boolean): string {
  if (!/terminal prompts disabled/.test(output)) return '';
  return tokenSent ? ' (the server did not accept the token: check CDN_GITOPS_REPO_TOKEN or CDN_GITOPS_REPO_TOKEN_FILE, and CDN_GITOPS_REPO_USERNAME)' : ' (the repository needs credentials: set CDN_GITOPS_REPO_TOKEN_FILE or CDN_GITOPS_REPO_TOKEN)';
}

/**
 * Runs a git command that reaches `access`'s repository (clone, fetch, ls-remote) and returns its
 * output; its error never holds a credential. `timeoutMs` kills git when it takes longer.
 */
export async function gitRemote(access: RepositoryAccess, args: string[], cwd?: string, timeoutMs?: number): Promise<string> {
  const { env, token } = await gitEnvironment(access.name, access.credentials);
  try {
    return (await run('git', args, { cwd, env, maxBuffer: 16 * 1024 * 1024, timeout: timeoutMs })).stdout;
  } catch (error) {
    const output = (error as { stderr?: string }).stderr?.trim() || (error as Error).message;
    const message = withoutUrlCredentials(`git ${args[0]} ${access.name} failed: ${output}${credentialHint(output, token !== undefined)}`);
    throw new Error(token ? message.split(token).join('[redacted]') : message);
  }
}

import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../config/load.js';
import { runCore } from './core.js';

const LOCAL_ADMIN = 'admin';

// The local admin's password is generated once and kept beside the embedded database.
async function localAdminPassword(dataDir: string): Promise<string> {
  const file = path.resolve(dataDir, 'local-admin-password');
  const existing = await readFile(file, 'utf8').catch(() => undefined);
  if (existing?.trim()) return existing.trim();
  const password = randomBytes(12).toString('base64url');
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  return password;
}

/**
 * `cdn local`: the whole local stack in one process tree. For now the core on
 * CDN_CORE_PORT with the embedded PostgreSQL (unless DATABASE_URL is set) and a
 * bootstrapped admin whose credentials are printed.
 */
export async function runLocal(env: NodeJS.ProcessEnv): Promise<void> {
  const base = loadConfig(env);
  const admin = base.bootstrapAdminUser
    ? {}
    : {
        CDN_BOOTSTRAP_ADMIN_USER: '1',
        CDN_BOOTSTRAP_ADMIN_USERNAME: LOCAL_ADMIN,
        CDN_BOOTSTRAP_ADMIN_PASSWORD: await localAdminPassword(base.dataDir),
      };
  const config = loadConfig({ ...env, ...admin });
  await runCore(config, (url) => localBanner(url, config.bootstrapAdminUsername!, config.bootstrapAdminPassword!));
}

function localBanner(url: string, username: string, password: string): string {
  return [
    '',
    `  CDN core ready at ${url}`,
    `  admin username: ${username}`,
    `  admin password: ${password}`,
    '',
    `  log in:  curl -s -X POST ${url}/api/v1/admin/login -H 'content-type: application/json' \\`,
    `             -d '{"username":"${username}","password":"${password}"}'`,
    '  stop:    Ctrl-C',
    '',
    '',
  ].join('\n');
}

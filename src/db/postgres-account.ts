import { execFile } from 'node:child_process';
import { chmod, lstat, mkdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { EmbeddedPostgresError } from './embedded-error.js';

const run = promisify(execFile);

/** The operating-system account the embedded server runs as when `cdn` runs as root. */
export type PostgresAccount = { uid: number; gid: number };

const ACCOUNT = 'postgres';
const GROUP_EXISTS = 9; // groupadd's exit code when the group is already there

async function lookUp(): Promise<PostgresAccount | undefined> {
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', ACCOUNT]), run('id', ['-g', ACCOUNT])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    return undefined;
  }
}

async function create(): Promise<PostgresAccount> {
  try {
    await run('groupadd', ['--system', ACCOUNT]).catch((error: { code?: unknown }) => {
      if (error.code !== GROUP_EXISTS) throw error;
    });
    await run('useradd', ['--system', '--gid', ACCOUNT, ACCOUNT]);
  } catch (error) {
    throw new EmbeddedPostgresError(`PostgreSQL refuses to run as root and creating a '${ACCOUNT}' account for it failed (${(error as Error).message})`, `create one (useradd --system ${ACCOUNT}), run as a non-root user, or set DATABASE_URL`);
  }
  const account = await lookUp();
  if (!account) throw new EmbeddedPostgresError(`the '${ACCOUNT}' account was created but cannot be looked up`);
  return account;
}

/**
 * Who runs the embedded server: undefined (the current user) unless this process is
 * root, which PostgreSQL refuses; then the `postgres` account, created when missing.
 */
export async function postgresAccount(): Promise<PostgresAccount | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  return (await lookUp()) ?? create();
}

function searchable(info: { uid: number; gid: number; mode: number }, account: PostgresAccount): boolean {
  if (info.uid === account.uid) return (info.mode & 0o100) !== 0;
  if (info.gid === account.gid) return (info.mode & 0o010) !== 0;
  return (info.mode & 0o001) !== 0;
}

async function chainSearchable(dir: string, account: PostgresAccount): Promise<boolean> {
  for (let current = dir; ; current = path.dirname(current)) {
    if (!searchable(await stat(current), account)) return false;
    if (current === path.dirname(current)) return true;
  }
}

/**
 * Whether `account` can enter the existing directory `dir`: search permission on it and on
 * every parent, along the path as given and along its real path (owner, primary group
 * and mode bits; supplementary groups and ACLs are not counted, so the answer errs on no).
 */
export async function canEnter(account: PostgresAccount, dir: string): Promise<boolean> {
  const given = path.resolve(dir);
  return (await chainSearchable(given, account)) && chainSearchable(await realpath(given), account);
}

/**
 * Makes `dir` (if needed) a root-owned folder every account may enter but only root may
 * write, for what root prepares for the postgres account; anything else there is refused.
 */
export async function rootOwnedFolder(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const info = await lstat(dir);
  if (!info.isDirectory() || info.uid !== 0) throw new EmbeddedPostgresError(`${dir} is not a directory owned by root`, 'remove it, or set DATABASE_URL to a PostgreSQL server');
  await chmod(dir, 0o755);
}

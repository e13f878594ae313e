import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { postgresAccount } from '../../src/db/postgres-account.js';
import { reachablePostgres } from '../../src/db/postgres-binaries.js';
import { PostgresCluster } from '../../src/db/postgres-cluster.js';

const STOP_TIMEOUT_MS = 15000;

/** A loopback port free at the time of the call. */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0];
}

/** `count` different free loopback ports: all held open until each is known, so none is handed out twice. */
export async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => net.createServer().listen(0, '127.0.0.1'));
  await Promise.all(servers.map((server) => new Promise((resolve) => server.once('listening', resolve))));
  const ports = servers.map((server) => (server.address() as net.AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/**
 * A PostgreSQL cluster of a suite's own, for tests that stop or crash the
 * server: database `cdn` on a free loopback port, under a temporary folder
 * that `remove` deletes.
 */
export class OwnCluster {
  private postgres: PostgresCluster;

  private constructor(
    private readonly dir: string,
    readonly port: number,
    private readonly cluster: () => PostgresCluster,
  ) {
    this.postgres = cluster();
  }

  static async create(): Promise<OwnCluster> {
    const dir = await mkdtemp(path.join(tmpdir(), 'cdn-cluster-'));
    await chmod(dir, 0o755); // the postgres user must be able to reach its data folder
    const port = await freePort();
    const account = await postgresAccount();
    const binaries = await reachablePostgres(account, pino({ level: 'silent' }));
    const own = new OwnCluster(dir, port, () => new PostgresCluster({ databaseDir: path.join(dir, 'pg'), port, user: 'postgres', password: 'postgres', binaries, account }));
    await own.postgres.initialise();
    await own.postgres.start();
    await own.postgres.createDatabase('cdn');
    return own;
  }

  get url(): string {
    return `postgresql://postgres:postgres@127.0.0.1:${this.port}/cdn`;
  }

  async stop(): Promise<void> {
    await this.postgres.stop();
  }

  /** Starts the stopped cluster again on the same port and data. */
  async start(): Promise<void> {
    this.postgres = this.cluster();
    await this.postgres.start();
  }

  /** Stops the cluster (killing it if a clean stop hangs, as one can in crash recovery) and deletes its files. */
  async remove(): Promise<void> {
    const stopped = this.postgres.stop().then(() => true);
    const timedOut = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), STOP_TIMEOUT_MS).unref());
    if (!(await Promise.race([stopped, timedOut]))) await this.kill();
    await rm(this.dir, { recursive: true, force: true });
  }

  private async kill(): Promise<void> {
    const pidFile = await readFile(path.join(this.dir, 'pg', 'postmaster.pid'), 'utf8').catch(() => '');
    const pid = Number(pidFile.split('\n')[0]);
    if (pid > 0) process.kill(pid, 'SIGKILL');
  }
}

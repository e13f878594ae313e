import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { EmbeddedPostgresError, oneLine } from './embedded-error.js';
import type { PostgresAccount } from './postgres-account.js';
import type { PostgresBinaries } from './postgres-binaries.js';

export type ClusterOptions = {
  databaseDir: string;
  port: number;
  user: string;
  password: string;
  binaries: PostgresBinaries;
  /** The account the server runs as (when this process is root), else the current user. */
  account?: PostgresAccount;
  /** Every line the server and initdb print. */
  onLog?: (line: string) => void;
};

const READY = 'database system is ready to accept connections';
const START_TIMEOUT_MS = 60000;
const STOP_GRACE_MS = 20000;
const KILL_GRACE_MS = 10000;
const TAIL_LINES = 5;
const RECENT_CHARS = 4096;
// Server messages are matched (READY), so they are kept in English.
const MESSAGES_ENV = { LC_MESSAGES: 'C' };

function spawnAs(program: string, args: string[], account: PostgresAccount | undefined): ChildProcess {
  return spawn(program, args, { ...account, env: { ...process.env, ...MESSAGES_ENV }, stdio: ['ignore', 'pipe', 'pipe'] });
}

function spawnProblem(program: string, error: NodeJS.ErrnoException): EmbeddedPostgresError {
  const reason = error.code === 'EACCES' ? 'permission denied' : (error.code ?? error.message);
  return new EmbeddedPostgresError(`cannot run ${program} (${reason})`);
}

/**
 * One PostgreSQL cluster run from `binaries`: initialised with initdb, served by a
 * `postgres` child process on 127.0.0.1, stopped with a fast shutdown. Every error of
 * the child processes ends in a rejected promise (an EmbeddedPostgresError), never in
 * an unhandled 'error' event; a server still running when this process exits is told to stop.
 */
export class PostgresCluster {
  private server: ChildProcess | undefined;
  private readonly stopOnExit = () => this.server?.kill('SIGINT');

  constructor(private readonly options: ClusterOptions) {}

  /** Creates the cluster in `databaseDir` (which must be absent or empty), with password authentication. */
  async initialise(): Promise<void> {
    const { databaseDir, account, user, password, binaries } = this.options;
    await mkdir(databaseDir, { recursive: true, mode: 0o700 });
    // Beside the data folder, whose parents the server's account can reach (unlike, say, root's TMPDIR).
    const passwordFile = path.join(path.dirname(databaseDir), `.pg-password-${randomBytes(6).toString('hex')}`);
    await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
    try {
      if (account) {
        await chown(databaseDir, account.uid, account.gid);
        await chown(passwordFile, account.uid, account.gid);
      }
      const args = [`--pgdata=${databaseDir}`, '--auth=password', `--username=${user}`, `--pwfile=${passwordFile}`, '--encoding=UTF8', '--locale=C'];
      await this.runToEnd(binaries.initdb, args);
    } finally {
      await rm(passwordFile, { force: true });
    }
  }

  /** Starts the server and resolves once it accepts connections. */
  async start(): Promise<void> {
    const { databaseDir, port, binaries, account } = this.options;
    const args = ['-D', databaseDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'lc_messages=C'];
    const server = spawnAs(binaries.postgres, args, account);
    this.server = server;
    process.on('exit', this.stopOnExit);
    const forget = () => {
      process.off('exit', this.stopOnExit);
      if (this.server === server) this.server = undefined;
    };
    server.once('exit', forget);
    server.on('error', () => {
      if (server.pid === undefined) forget(); // never started, so no 'exit' will come
    });
    await new Promise<void>((resolve, reject) => {
      let recent = ''; // the end of the server's output: what a failure shows, where READY is looked for
      const tail = () => oneLine(recent.split('\n').slice(-TAIL_LINES).join('\n'));
      const timer = setTimeout(() => {
        server.kill('SIGINT');
        fail(new EmbeddedPostgresError(`the server did not accept connections within ${START_TIMEOUT_MS / 1000} s: ${tail()}`));
      }, START_TIMEOUT_MS);
      const fail = (error: Error) => {
        clearTimeout(timer);
        reject(error);
      };
      server.on('error', (error) => fail(spawnProblem(binaries.postgres, error)));
      server.once('exit', (code, signal) => fail(new EmbeddedPostgresError(`the server exited at start (${signal ?? `code ${code}`}): ${tail()}`)));
      server.stderr!.on('data', (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        this.options.onLog?.(text);
        recent = (recent + text).slice(-RECENT_CHARS);
        if (recent.includes(READY)) {
          clearTimeout(timer);
          resolve();
        }
      });
      server.stdout!.on('data', (chunk: Buffer) => this.options.onLog?.(chunk.toString('utf8')));
    });
  }

  /**
   * Fast shutdown (SIGINT: active sessions are ended, data is consistent); resolves once the server
   * is gone. A server that does not stop in time (it can hang in crash recovery) gets SIGQUIT
   * (immediate shutdown, recovered at the next start), then SIGKILL.
   */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server || server.exitCode !== null || server.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      const timers = [setTimeout(() => server.kill('SIGQUIT'), STOP_GRACE_MS), setTimeout(() => server.kill('SIGKILL'), STOP_GRACE_MS + KILL_GRACE_MS)];
      server.once('exit', () => {
        timers.forEach(clearTimeout);
        resolve();
      });
      server.kill('SIGINT');
    });
  }

  /** The process id of the running server, if any. */
  get pid(): number | undefined {
    return this.server?.pid;
  }

  /** Creates a database on the running server. */
  async createDatabase(name: string): Promise<void> {
    const { user, password, port } = this.options;
    const client = new pg.Client({ host: '127.0.0.1', port, user, password, database: 'postgres' });
    client.on('error', () => {}); // a dropped connection also rejects the query below
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
    } finally {
      await client.end();
    }
  }

  // Runs a program of the installation to completion; a non-zero exit becomes one line with its last output.
  private runToEnd(program: string, args: string[]): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawnAs(program, args, this.options.account);
      let output = '';
      const collect = (chunk: Buffer) => {
        output += chunk.toString('utf8');
        this.options.onLog?.(chunk.toString('utf8'));
      };
      child.stdout!.on('data', collect);
      child.stderr!.on('data', collect);
      child.on('error', (error) => reject(spawnProblem(program, error)));
      child.once('close', (code, signal) => {
        if (code === 0) resolve();
        else reject(new EmbeddedPostgresError(`${path.basename(program)} failed (${signal ?? `code ${code}`}): ${oneLine(output.split('\n').slice(-TAIL_LINES).join('\n'))}`));
      });
    });
  }
}

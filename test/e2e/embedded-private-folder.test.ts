import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, cp, mkdir, mkdtemp, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { expect } from 'chai';
import pg from 'pg';
import pino from 'pino';
import { startEmbeddedPostgres } from '../../src/db/embedded.js';
import { EmbeddedPostgresError } from '../../src/db/embedded-error.js';
import { postgresAccount } from '../../src/db/postgres-account.js';
import { BINARY_CACHE, installedPostgres, type PostgresBinaries } from '../../src/db/postgres-binaries.js';

const CLI = new URL('../../bin/cdn.js', import.meta.url).pathname;
const silent = pino({ level: 'silent' });

async function serverPid(databaseDir: string): Promise<number> {
  return Number((await readFile(path.join(databaseDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function uidOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^Uid:\s+(\d+)/m.exec(status)![1]);
}

// The PostgreSQL tree copied under `root`, as `npm ci` puts it in a clone there; `version` keys its cache copy.
async function installationUnder(root: string, version: string): Promise<PostgresBinaries> {
  const installed = await installedPostgres();
  const tree = path.join(root, 'node_modules', 'native');
  await cp(installed.root, tree, { recursive: true, verbatimSymlinks: true });
  const moved = (file: string) => path.join(tree, path.relative(installed.root, file));
  return { root: tree, initdb: moved(installed.initdb), postgres: moved(installed.postgres), version };
}

type Core = { child: ChildProcess; url: string; lines: string[] };

function startCore(dataDir: string): Promise<Core> {
  const env: NodeJS.ProcessEnv = { ...process.env, CDN_DATA_DIR: dataDir, CDN_CORE_PORT: '0', CDN_LOG_LEVEL: 'info', CDN_PUBLISH_ENABLED: 'false' };
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, [CLI, 'core'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => lines.push(line));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('core did not start within 60 s')), 60000);
    child.once('exit', (code) => reject(new Error(`core exited early with ${code}: ${lines.join('\n')}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      if (entry.msg === 'core listening') {
        clearTimeout(timer);
        resolve({ child, url: entry.url!, lines });
      }
    });
  });
}

function exitCode(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

// A root user who clones into `mktemp -d` (0700) or under /root: the postgres account the server
// runs as cannot enter the clone, so neither its node_modules nor its ./.data.
describe('embedded PostgreSQL started by root from a folder only root can enter', function () {
  this.timeout(120000);
  let dir: string;
  const cleanups: string[] = [];

  before(async function () {
    if (process.getuid?.() !== 0) this.skip();
    dir = await mkdtemp(path.join(tmpdir(), 'cdn-private-'));
    expect((await stat(dir)).mode & 0o777).to.equal(0o700);
  });
  after(async () => {
    for (const target of [...cleanups, dir].filter(Boolean)) await rm(target, { recursive: true, force: true });
  });

  it('runs the server as postgres from a copy of the binaries and a data folder it can reach, and stops it', async () => {
    const version = `test-${randomBytes(4).toString('hex')}`;
    const dataDir = path.join(dir, 'clone', '.data');
    cleanups.push(path.join(BINARY_CACHE, `postgres-${version}-${process.platform}-${process.arch}`));
    const embedded = await startEmbeddedPostgres(dataDir, silent, { installed: await installationUnder(path.join(dir, 'clone'), version) });
    cleanups.push(embedded.databaseDir);
    const pid = await serverPid(embedded.databaseDir);
    try {
      expect(embedded.databaseDir).to.equal((await readFile(path.join(dataDir, 'postgres.location'), 'utf8')).trim());
      expect(embedded.databaseDir.startsWith(dir)).to.equal(false);
      expect(await uidOf(pid)).to.equal((await postgresAccount())!.uid);
      expect(await readlink(`/proc/${pid}/exe`)).to.equal(path.join(BINARY_CACHE, `postgres-${version}-${process.platform}-${process.arch}`, 'bin', 'postgres'));
      const client = new pg.Client({ connectionString: embedded.url });
      await client.connect();
      expect((await client.query('SELECT current_database() AS name')).rows[0].name).to.equal('cdn');
      await client.end();
    } finally {
      await embedded.stop();
    }
    expect(running(pid)).to.equal(false);
  });

  it('refuses binaries that cannot run with one line saying what to do, not an unhandled error event', async () => {
    // In a folder everyone can enter, so the broken tree is run where it is (not copied).
    const reachable = await mkdtemp(path.join(tmpdir(), 'cdn-broken-'));
    cleanups.push(reachable);
    await chmod(reachable, 0o755);
    const broken = path.join(reachable, 'bin');
    await mkdir(broken);
    await writeFile(path.join(broken, 'initdb'), 'not a program', { mode: 0o644 });
    const installed = { root: reachable, initdb: path.join(broken, 'initdb'), postgres: path.join(broken, 'postgres'), version: 'broken' };
    const dataDir = path.join(reachable, 'data');
    const failure = await startEmbeddedPostgres(dataDir, silent, { installed }).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure).to.be.instanceOf(EmbeddedPostgresError);
    expect(failure!.message).to.match(/^embedded PostgreSQL: cannot run .*initdb \(permission denied\); .*DATABASE_URL/);
    expect(failure!.message).to.not.include('\n');
  });

  it('serves `cdn core` with CDN_DATA_DIR inside the folder and leaves no server running after SIGTERM', async () => {
    const dataDir = path.join(dir, 'cli', '.data');
    const core = await startCore(dataDir);
    const databaseDir = (await readFile(path.join(dataDir, 'postgres.location'), 'utf8')).trim();
    cleanups.push(databaseDir);
    const pid = await serverPid(databaseDir);
    const created = await fetch(`${core.url}/api/v1/domains`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ domain: 'private.example' }) });
    expect(created.status).to.equal(201);
    core.child.kill('SIGTERM');
    expect(await exitCode(core.child)).to.equal(0);
    expect(running(pid), 'the postgres server is gone').to.equal(false);
    expect(core.lines.join('\n')).to.not.match(/Unhandled|EACCES/);
  });
});

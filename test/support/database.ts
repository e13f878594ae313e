import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.js';

// Tests use the server of DATABASE_URL when it is set (CI's machine Postgres),
// otherwise one embedded cluster shared by the whole run. Each suite gets its own database.
let shared: { embedded?: EmbeddedDatabase; dir?: string; url: string } | undefined;

async function serverUrl(): Promise<string> {
  if (shared) return shared.url;
  if (process.env.DATABASE_URL) {
    shared = { url: process.env.DATABASE_URL };
    return shared.url;
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'cdn-test-pg-'));
  await chmod(dir, 0o755); // the postgres user must be able to reach its data folder
  const embedded = await startEmbeddedPostgres(dir, pino({ level: 'silent' }));
  shared = { embedded, dir, url: embedded.url };
  return shared.url;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function onServer<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withDatabase(await serverUrl(), 'postgres') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates an empty database with a unique name and returns its URL. */
export async function createTestDatabase(): Promise<string> {
  const name = `cdn_test_${randomBytes(6).toString('hex')}`;
  await onServer((client) => client.query(`CREATE DATABASE ${name}`));
  return withDatabase(await serverUrl(), name);
}

/** Runs one statement on the test server as its superuser (roles and database ownership). */
export async function runOnServer(sql: string): Promise<void> {
  await onServer((client) => client.query(sql));
}

/**
 * A pg pool for a test database. pool.end() resolves before its connections have closed, and a
 * connection the following DROP DATABASE ... WITH (FORCE) then terminates makes the pool emit
 * 'error': without a listener that error would end the test run.
 */
export function testPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on('error', () => undefined);
  return pool;
}

/** Drops a database made by createTestDatabase, disconnecting anyone still on it. */
export async function dropTestDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  await onServer((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/** Stops the shared embedded cluster, if this run started one. */
export async function stopSharedServer(): Promise<void> {
  if (shared?.embedded) await shared.embedded.stop();
  if (shared?.dir) await rm(shared.dir, { recursive: true, force: true });
  shared = undefined;
}

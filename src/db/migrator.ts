import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { LOCK_KEYS, withAdvisoryLock } from './advisory-lock.js';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));

export type MigrationFile = { name: string; sql: string; checksum: string };
export type MigrationState = { name: string; state: 'applied' | 'pending'; applied_at?: Date };

/** A migration that cannot be applied safely (changed after it ran, or failed earlier). */
export class MigrationError extends Error {}

// The table Prisma itself keeps, so `prisma migrate status` agrees with us where its engine runs.
const CREATE_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

type AppliedRow = { migration_name: string; checksum: string; finished_at: Date | null; rolled_back_at: Date | null };

/** The migration folders under `dir`, in name (timestamp) order, with the sha256 of each migration.sql. */
export async function readMigrations(dir = MIGRATIONS_DIR): Promise<MigrationFile[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

async function readApplied(client: pg.PoolClient | pg.Pool): Promise<Map<string, AppliedRow>> {
  const exists = await client.query(`SELECT to_regclass('"_prisma_migrations"') AS t`);
  if (!exists.rows[0].t) return new Map();
  const { rows } = await client.query<AppliedRow>(
    'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL',
  );
  return new Map(rows.map((row) => [row.migration_name, row]));
}

function checkApplied(file: MigrationFile, row: AppliedRow): void {
  if (!row.finished_at) {
    throw new MigrationError(`migration ${file.name} started but did not finish; inspect the database and mark it rolled back before retrying`);
  }
  if (row.checksum !== file.checksum) {
    throw new MigrationError(`migration ${file.name} was modified after it was applied (checksum ${row.checksum.slice(0, 12)}… in the database, ${file.checksum.slice(0, 12)}… on disk)`);
  }
}

async function applyOne(client: pg.PoolClient, file: MigrationFile): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(file.sql);
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
       VALUES ($1, $2, $3, now(), now(), 1)`,
      [randomUUID(), file.checksum, file.name],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw new MigrationError(`migration ${file.name} failed and was rolled back: ${(error as Error).message}`);
  }
}

/** Applies pending migrations in order, each in its own transaction, under the migration advisory lock; returns the names applied. */
export async function migrate(pool: pg.Pool, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = await readMigrations(dir);
  return withAdvisoryLock(pool, LOCK_KEYS.migrate, async (client) => {
    await client.query(CREATE_TABLE);
    const applied = await readApplied(client);
    const done: string[] = [];
    for (const file of files) {
      const row = applied.get(file.name);
      if (row) {
        checkApplied(file, row);
        continue;
      }
      await applyOne(client, file);
      done.push(file.name);
    }
    return done;
  });
}

/** The names of the migrations of `states` not applied yet, in order. */
export function pendingNames(states: MigrationState[]): string[] {
  return states.filter((state) => state.state === 'pending').map((state) => state.name);
}

/** Every migration on disk with whether it is applied; also verifies checksums of applied ones. */
export async function migrationStatus(pool: pg.Pool, dir = MIGRATIONS_DIR): Promise<MigrationState[]> {
  const files = await readMigrations(dir);
  const applied = await readApplied(pool);
  return files.map((file) => {
    const row = applied.get(file.name);
    if (!row) return { name: file.name, state: 'pending' };
    checkApplied(file, row);
    return { name: file.name, state: 'applied', applied_at: row.finished_at ?? undefined };
  });
}

#!/usr/bin/env node
// Writes prisma/migrations/<timestamp>_<name>/migration.sql with the SQL that turns the
// schema.prisma of a git ref (default HEAD) into the working copy's schema.prisma.
// Usage: node scripts/new-migration.mjs <name> [--from-ref REF]
// Needs DATABASE_URL (any reachable PostgreSQL; nothing is changed there): Prisma's
// offline schema engine connects through the driver adapter even for a pure diff.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const [name, ...rest] = process.argv.slice(2);
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error('usage: node scripts/new-migration.mjs <snake_case_name> [--from-ref REF]');
  process.exit(2);
}
const refIndex = rest.indexOf('--from-ref');
const ref = refIndex >= 0 ? rest[refIndex + 1] : 'HEAD';
const previous = path.join(mkdtempSync(path.join(tmpdir(), 'schema-')), 'schema.prisma');
writeFileSync(previous, execFileSync('git', ['show', `${ref}:prisma/schema.prisma`]));

const diff = spawnSync(
  process.execPath,
  ['scripts/prisma-offline.mjs', 'migrate', 'diff', '--from-schema-datamodel', previous, '--to-schema-datamodel', 'prisma/schema.prisma', '--script'],
  { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
);
if (diff.status !== 0) process.exit(diff.status ?? 1);
const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
const dir = path.join('prisma', 'migrations', `${stamp}_${name}`);
mkdirSync(dir, { recursive: true });
writeFileSync(path.join(dir, 'migration.sql'), diff.stdout);
console.log(`wrote ${path.join(dir, 'migration.sql')}`);

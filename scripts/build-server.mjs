#!/usr/bin/env node
// Compiles the server's TypeScript (src/, less the browser dashboard) to JavaScript in lib/, one
// file per source file at the same depth as src/, so that paths relative to a module (schemas/,
// prisma/migrations, dist/dashboard, package.json) hold from either tree. `cdn` runs lib/ while
// it matches the sources (bin/cdn.js, scripts/server-build-stamp.mjs): the core and the edge then
// run plain JavaScript, with no compiler hooked into module loading and no helper wrapped around
// every function a request creates (docs/runtime.md). Relative `.ts` import specifiers (Prisma's
// generated client writes them) become `.js`. Runs from postinstall and before the tests.
import { build } from 'esbuild';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { LIB_DIR, SOURCE_DIR, serverSources, sourceStamp, STAMP_FILE } from './server-build-stamp.mjs';

const TS_SPECIFIER = /((?:from|import)\s*\(?\s*)(["'])(\.{1,2}\/[^"']+)\.ts\2/g;

const files = serverSources();
const stamp = sourceStamp(files);
const result = await build({
  entryPoints: files,
  outdir: LIB_DIR,
  outbase: SOURCE_DIR,
  format: 'esm',
  platform: 'node',
  target: `node${process.versions.node.split('.')[0]}`,
  write: false,
  logLevel: 'warning',
});
// The stamp goes last: a lib/ cut short (a failed or interrupted build) is never taken for current.
await rm(LIB_DIR, { recursive: true, force: true });
for (const file of result.outputFiles) {
  await mkdir(path.dirname(file.path), { recursive: true });
  await writeFile(file.path, file.text.replace(TS_SPECIFIER, '$1$2$3.js$2'));
}
await writeFile(STAMP_FILE, `${stamp}\n`);

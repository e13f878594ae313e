#!/usr/bin/env node
// Builds the browser dashboard (src/dashboard) into dist/dashboard with esbuild: one hashed
// script and stylesheet, and index.html naming them. Offline: esbuild is an npm dependency.
// Runs from postinstall, so `npm ci` leaves a servable dashboard; `--print-sizes` prints the
// shipped bytes, raw and gzipped.
import { build } from 'esbuild';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const source = path.join(root, 'src', 'dashboard');
const out = path.join(root, 'dist', 'dashboard');

await rm(out, { recursive: true, force: true });
await mkdir(path.join(out, 'assets'), { recursive: true });
const result = await build({
  entryPoints: [path.join(source, 'main.tsx')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: path.join(out, 'assets'),
  entryNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});
const outputs = Object.keys(result.metafile.outputs).map((file) => path.relative(out, path.join(root, file)));
const script = outputs.find((file) => file.endsWith('.js'));
const style = outputs.find((file) => file.endsWith('.css'));
const html = (await readFile(path.join(source, 'index.html'), 'utf8')).replace('%SCRIPT%', `/${script}`).replace('%STYLE%', `/${style}`);
await writeFile(path.join(out, 'index.html'), html);

if (process.argv.includes('--print-sizes')) {
  for (const file of outputs) {
    const bytes = await readFile(path.join(out, file));
    console.log(`${file.padEnd(40)} ${String(bytes.length).padStart(8)} B  ${String(gzipSync(bytes).length).padStart(7)} B gzipped`);
  }
}

#!/usr/bin/env node
// Entry point of the `cdn` command: the compiled JavaScript in lib/ while it matches the sources
// (npm ci and npm test build it: scripts/build-server.mjs), else the TypeScript sources through tsx,
// as while they are being edited. docs/runtime.md says why.
import { libIsCurrent } from '../scripts/server-build-stamp.mjs';

if (libIsCurrent()) {
  const { main } = await import('../lib/cli.js');
  await main(process.argv);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../src/cli.ts');
  await main(process.argv);
}

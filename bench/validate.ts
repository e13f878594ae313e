// npm run bench:validate — validates a repository of 500 domain files (10 records, 2 origins,
// 10 rules each), in-process and through the `cdn validate` command. Target: under 2 s.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadDesiredState } from '../src/gitops/load.js';
import { writeBenchRepository } from './gitops-fixture.js';

const DOMAINS = 500;
const exec = promisify(execFile);
const dir = await mkdtemp(path.join(tmpdir(), 'cdn-bench-validate-'));
try {
  await writeBenchRepository(dir, DOMAINS);
  for (const round of [1, 2]) {
    const started = performance.now();
    const state = await loadDesiredState(dir);
    const ms = performance.now() - started;
    console.log(`in-process load + validate, run ${round}: ${DOMAINS} files in ${ms.toFixed(0)} ms (${state.domains.length} valid, ${state.problems.length} problems)`);
  }
  const started = performance.now();
  const { stdout } = await exec(process.execPath, [path.resolve('bin/cdn.js'), 'validate', dir]);
  console.log(`cdn validate (whole command, process start included): ${(performance.now() - started).toFixed(0)} ms — ${stdout.trim()}`);
} finally {
  await rm(dir, { recursive: true, force: true });
}

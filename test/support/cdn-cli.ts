import { execFile } from 'node:child_process';
import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';

/** The `cdn` command of this checkout (what `npm install --global` of it links as `cdn`). */
export const CDN_BIN = new URL('../../bin/cdn.js', import.meta.url).pathname;

export type CliResult = { code: number; stdout: string; stderr: string };

/** Runs `file args` as its own process (the core under test keeps serving meanwhile) and returns its exit code and output. */
export function runProcess(file: string, args: string[], options: { env: NodeJS.ProcessEnv; cwd?: string }): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(file, args, { ...options, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** `cdn args` as CI runs it: its own process, no stdin, everything else from `env` on top of this process's environment. */
export function runCdn(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return runProcess(process.execPath, [CDN_BIN, ...args], { env: { ...process.env, ...env } });
}

/** A folder holding a `cdn` that runs this checkout, to put first on PATH. */
export async function cdnOnPath(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  await symlink(CDN_BIN, path.join(dir, 'cdn'));
  return dir;
}

/** A working repository on branch main with a bare `origin` beside it (under `dir`), as a hosted repository and a clone of it. */
export async function repositoryWithRemote(dir: string): Promise<{ work: SimpleGit; workDir: string; remote: string }> {
  const remote = path.join(dir, 'remote.git');
  const workDir = path.join(dir, 'work');
  await simpleGit().init(true, [remote, '--initial-branch=main']);
  await mkdir(workDir, { recursive: true });
  const work = simpleGit(workDir);
  await work.init(['--initial-branch=main']);
  await work.addConfig('user.email', 'ops@example.net').addConfig('user.name', 'Ops');
  await work.addRemote('origin', remote);
  return { work, workDir, remote };
}

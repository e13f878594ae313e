import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CDN_BIN = fileURLToPath(new URL('../../bin/cdn.js', import.meta.url));
const STOP_GRACE_MS = 10000;

/** The edge of the local stack: `cdn edge` as a child process, pointed at the local core. */
export type LocalEdge = { child: ChildProcess; stop(): Promise<void> };

/**
 * Starts `cdn edge` beside the local core with the local edge token; its output
 * goes to this terminal. If it dies on its own, `onExit` is told.
 */
export function startLocalEdge(env: NodeJS.ProcessEnv, coreUrl: string, token: string, dataDir: string, onExit: (code: number | null) => void): LocalEdge {
  const child = spawn(process.execPath, [CDN_BIN, 'edge'], {
    env: { ...env, CDN_EDGE_CORE_URL: coreUrl, CDN_EDGE_TOKEN: token, CDN_EDGE_ID: env.CDN_EDGE_ID || 'local-edge', CDN_EDGE_DATA_DIR: env.CDN_EDGE_DATA_DIR || path.join(dataDir, 'edge') },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  let stopping = false;
  child.once('exit', (code) => {
    if (!stopping) onExit(code);
  });
  process.once('exit', () => child.kill('SIGTERM'));
  return {
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        stopping = true;
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const force = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

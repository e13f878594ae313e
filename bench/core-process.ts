import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export type CoreProcess = { child: ChildProcess; base: string; stop: () => Promise<void> };

/** A line the core logged (pino JSON). */
export type LogEntry = { level?: number; time?: number; msg?: string } & Record<string, unknown>;

/**
 * Starts `cdn core` as its own process on `databaseUrl` with extra env, resolving once it
 * listens (its later log lines go to `onLog`, or are dropped, so its stdout never fills up).
 * BENCH_CORE_NODE_ARGS are node options for it (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof).
 */
export function startCoreProcess(databaseUrl: string, env: Record<string, string> = {}, onLog?: (entry: LogEntry) => void): Promise<CoreProcess> {
  const nodeArgs = (process.env.BENCH_CORE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, 'bin/cdn.js', 'core'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, CDN_CORE_PORT: '0', CDN_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = async () => {
    child.removeAllListeners('exit');
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  };
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`core exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const entry = JSON.parse(line) as LogEntry;
      if (entry.msg === 'core listening') resolve({ child, base: entry.url as string, stop });
      onLog?.(entry);
      // Errors of the core are shown: a bench that hides a 500 measures the wrong thing.
      if (entry.level! >= 50) console.error(line.slice(0, 3000));
    });
  });
}

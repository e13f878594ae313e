import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { signedHeaders } from '../src/shared/signing.js';

const SCRIPT = new URL('./edge-poll.lua', import.meta.url).pathname;

/** wrk's summary of a run, as edge-poll.lua prints it; latencies in microseconds. */
export type PollResult = { requests: number; duration_us: number; http_errors: number; socket_errors: number; p50: number; p99: number; p999: number; max: number };

/** Runs wrk with `args` to its end: its exit code and what it printed. `cpu`: the one CPU it runs on (taskset). */
export function runWrk(args: string[], env: NodeJS.ProcessEnv = process.env, cpu?: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = cpu === undefined ? spawn('wrk', args, { env, stdio: ['ignore', 'pipe', 'inherit'] }) : spawn('taskset', ['-c', String(cpu), 'wrk', ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => resolve({ code, output }));
  });
}

/** Exits with instructions when wrk (Debian package `wrk`) is not installed. */
export function requireWrk(): void {
  if (spawnSync('wrk', ['--version']).error) {
    console.error('this benchmark drives the core with wrk: install it first (apt-get install wrk)');
    process.exit(1);
  }
}

async function signRequests(file: string, options: { token: string; path: string; edges: number; count: number }): Promise<void> {
  const lines: string[] = [];
  for (let i = 0; i < options.count; i++) {
    const edgeId = `bench-edge-${i % options.edges}`;
    const headers = signedHeaders({ token: options.token, edgeId, method: 'GET', pathWithQuery: options.path });
    lines.push(`${edgeId} ${headers['x-cdn-timestamp']} ${headers['x-cdn-nonce']} ${headers['x-cdn-signature']}`);
  }
  await writeFile(file, `${lines.join('\n')}\n`);
}

/**
 * `edges` connections, each an edge pulling `path` with a signed GET and pausing
 * 0.5-1.5 x `pollMs` after each answer (0: back to back), for `seconds`. Signs
 * `count` requests first (each is used once; running out replays, counted as errors).
 */
export async function pollWithWrk(base: string, options: { token: string; path: string; edges: number; pollMs: number; seconds: number; count: number }): Promise<PollResult> {
  const dir = await mkdtemp(path.join(tmpdir(), 'cdn-bench-wrk-'));
  const file = path.join(dir, 'signed.txt');
  try {
    await signRequests(file, options);
    const env = { ...process.env, EDGE_TOKEN: options.token, PULL_PATH: options.path, POLL_MS: String(options.pollMs), SIGNED_FILE: file };
    const { code, output } = await runWrk(['-t1', `-c${options.edges}`, `-d${options.seconds}s`, '--timeout', '5s', '-s', SCRIPT, base], env);
    const summary = output.split('\n').find((line) => line.startsWith('{'));
    if (code !== 0 || !summary) throw new Error(`wrk failed (exit ${code}):\n${output}`);
    return JSON.parse(summary) as PollResult;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

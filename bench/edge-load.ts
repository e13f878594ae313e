// The two loads of `npm run bench:edge`, both driven by wrk (apt-get install wrk):
// saturation (every connection back to back) for throughput, and a paced load below
// saturation for the latency a proxy adds.
import { runWrk } from './wrk.js';

export type WrkResult = { rps: number; p99Ms: number; failed: number; requests: number };
export type PacedResult = { rps: number; p50Ms: number; p99Ms: number; failed: number };

const PACED_SCRIPT = new URL('./paced.lua', import.meta.url).pathname;

/**
 * Every connection back to back for `seconds`: requests/s, p99 (ms) and the failed requests (non-2xx/3xx and socket errors).
 * `script`: a wrk Lua script; `cpu`: one CPU for wrk (one thread, on that CPU only) instead of two threads anywhere.
 */
export async function saturate(url: string, host: string, seconds: number, connections: number, script?: string, cpu?: number): Promise<WrkResult> {
  const threads = cpu === undefined ? '-t2' : '-t1';
  const { code, output } = await runWrk([threads, `-c${connections}`, `-d${seconds}s`, '--latency', '-H', `Host: ${host}`, ...(script ? ['-s', script] : []), url], process.env, cpu);
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(output);
  const p99 = /\s99%\s+([\d.]+)(us|ms|s)/.exec(output);
  const requests = /(\d+) requests in/.exec(output);
  if (code !== 0 || !rps || !p99 || !requests) throw new Error(`wrk failed (${code}):\n${output}`);
  const unit = { us: 0.001, ms: 1, s: 1000 }[p99[2] as 'us' | 'ms' | 's'];
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const socketErrors = socket ? socket.slice(1).reduce((sum, value) => sum + Number(value), 0) : 0;
  return { rps: Number(rps[1]), p99Ms: Number(p99[1]) * unit, failed: non2xx + socketErrors, requests: Number(requests[1]) };
}

/** `connections` clients each pausing 0.5-1.5 x `pauseMs` between answer and request (bench/paced.lua), for `seconds`. */
export async function paced(url: string, host: string, seconds: number, connections: number, pauseMs: number): Promise<PacedResult> {
  const env = { ...process.env, PAUSE_MS: String(pauseMs), HOST_HEADER: host };
  const { code, output } = await runWrk(['-t2', `-c${connections}`, `-d${seconds}s`, '-s', PACED_SCRIPT, url], env);
  const summary = output.split('\n').find((line) => line.startsWith('{'));
  if (code !== 0 || !summary) throw new Error(`wrk failed (${code}):\n${output}`);
  const result = JSON.parse(summary) as { requests: number; duration_us: number; failed: number; p50: number; p99: number };
  return { rps: result.requests / (result.duration_us / 1e6), p50Ms: result.p50 / 1000, p99Ms: result.p99 / 1000, failed: result.failed };
}

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './cluster.js';
import { rawRequest, type RawRequest, type RawResponse } from './raw-http.js';

const CDN_BIN = path.resolve('bin/cdn.js');
const START_TIMEOUT_MS = 30000;
const STOP_TIMEOUT_MS = 15000;

/** `nodeArgs`: node options for the edge and its workers (a bench's profiling, e.g. --cpu-prof). */
export type EdgeProcessOptions = { coreUrl: string; token: string; edgeId?: string; workers?: number; dataDir?: string; env?: Record<string, string>; waitReady?: boolean; nodeArgs?: string[] };

/** A real `cdn edge` process (primary + workers) on a free loopback port, with its output kept for failure messages. */
export class EdgeProcess {
  output = '';

  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
    /** The TLS listener's port (CDN_EDGE_HTTPS_PORT): a free one unless the caller's env sets it. */
    readonly httpsPort: number,
    /** The metrics listener's port (CDN_EDGE_METRICS_PORT): a free one unless the caller's env sets it. */
    readonly metricsPort: number,
    readonly dataDir: string,
    private readonly ownDataDir: boolean,
  ) {
    child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
  }

  static async start(options: EdgeProcessOptions): Promise<EdgeProcess> {
    const port = await freePort();
    const httpsPort = options.env?.CDN_EDGE_HTTPS_PORT === undefined ? await freePort() : Number(options.env.CDN_EDGE_HTTPS_PORT);
    const metricsPort = options.env?.CDN_EDGE_METRICS_PORT === undefined ? await freePort() : Number(options.env.CDN_EDGE_METRICS_PORT);
    const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'cdn-edge-')));
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), CDN_BIN, 'edge'], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        CDN_LOG_LEVEL: process.env.CDN_TEST_EDGE_LOG_LEVEL ?? 'warn',
        CDN_EDGE_CORE_URL: options.coreUrl,
        CDN_EDGE_TOKEN: options.token,
        CDN_EDGE_ID: options.edgeId ?? 'test-edge',
        CDN_EDGE_WORKERS: String(options.workers ?? 2),
        CDN_EDGE_HTTP_PORT: String(port),
        CDN_EDGE_HTTPS_PORT: String(httpsPort),
        CDN_EDGE_METRICS_PORT: String(metricsPort),
        CDN_EDGE_DATA_DIR: dataDir,
        CDN_EDGE_HEARTBEAT_SECONDS: '1',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const edge = new EdgeProcess(child, port, httpsPort, metricsPort, dataDir, options.dataDir === undefined);
    if (options.waitReady !== false) await edge.waitReady();
    return edge;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The edge's metrics endpoint (docs/metrics.md, "Edge"). */
  get metricsUrl(): string {
    return `http://127.0.0.1:${this.metricsPort}/metrics`;
  }

  /** Waits until /ready answers 200 with at least `minVersion` and every worker serves the primary's active snapshot. */
  async waitReady(minVersion = 0, timeoutMs = START_TIMEOUT_MS): Promise<Record<string, any>> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    for (;;) {
      if (this.child.exitCode !== null) throw new Error(`cdn edge exited with ${this.child.exitCode}:\n${this.output}`);
      const answer = await fetch(`${this.url}/ready`).then(
        async (response) => ({ status: response.status, text: await response.text() }),
        (error: Error) => ({ status: 0, text: error.message }),
      );
      last = `${answer.status} ${answer.text}`;
      const ready = answer.status === 200 ? (JSON.parse(answer.text) as Record<string, any>) : undefined;
      if (ready && ready.config.version >= minVersion && ready.workers?.on_active_version === ready.workers?.configured) return ready;
      if (Date.now() > deadline) throw new Error(`cdn edge not ready (version >= ${minVersion}) in ${timeoutMs} ms; last /ready: ${last}\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** The pids of the edge's workers: children of the edge process running `cdn.js` (not tsx's or esbuild's helpers). */
  async workerPids(): Promise<number[]> {
    const pids: number[] = [];
    for (const entry of await readdir('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
      const command = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === this.child.pid && command.includes('cdn.js')) pids.push(Number(entry));
    }
    return pids;
  }

  /** A request to the edge for `host`. */
  request(host: string, pathWithQuery: string, init: Omit<RawRequest, 'port' | 'host' | 'path'> = {}): Promise<RawResponse> {
    return rawRequest({ ...init, port: this.port, host, path: pathWithQuery });
  }

  /** Stops the edge (SIGTERM, then SIGKILL) and removes its data folder unless the caller owns it. */
  async stop(options: { keepData?: boolean; signal?: NodeJS.Signals } = {}): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill(options.signal ?? 'SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    if (this.ownDataDir && !options.keepData) await rm(this.dataDir, { recursive: true, force: true });
  }
}

/** The resident set size of process `pid` in bytes (VmRSS of /proc/<pid>/status). */
export async function residentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

// A fleet of simulated idle edges held open by the config long-poll, and the core's CPU while it is
// (issue #25, item 4): shared by `npm run bench:idle-edges` and `npm run bench:propagation`.
import { readFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { signedHeaders } from '../src/shared/signing.js';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

export type Pulled = { status: number; version: number | null; at: number };

/** CPU seconds (user + system) the process has used so far. */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

export async function residentMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/** The process's CPU per wall second over `seconds`, in percent of one core. */
export async function cpuPercent(pid: number, seconds: number): Promise<number> {
  const before = await cpuSeconds(pid);
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  return ((await cpuSeconds(pid)) - before) / ((performance.now() - started) / 1000) * 100;
}

/** One simulated edge: a long-poll (`wait` seconds) always open, re-issued with the version it was last answered. */
export class IdleEdge {
  version: number;
  answers = 0;
  failures = 0;
  onAnswer: ((pulled: Pulled) => void) | undefined;
  private stopped = false;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });

  constructor(
    private readonly base: URL,
    private readonly edgeToken: string,
    private readonly edgeId: string,
    version: number,
    private readonly wait: number,
  ) {
    this.version = version;
  }

  start(): void {
    const path = `/api/v1/edge/config?if_version=${this.version}&wait=${this.wait}`;
    const headers = { ...signedHeaders({ token: this.edgeToken, edgeId: this.edgeId, method: 'GET', pathWithQuery: path }), 'accept-encoding': 'gzip' };
    const sent = request({ host: this.base.hostname, port: this.base.port, path, headers, agent: this.agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const pulled: Pulled = { status: response.statusCode!, version: null, at: performance.now() };
        const body = Buffer.concat(chunks);
        if (response.statusCode === 200) pulled.version = JSON.parse((response.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body).toString()).data.version;
        this.answered(pulled);
      });
    });
    sent.on('error', () => {
      this.failures++;
      if (!this.stopped) setTimeout(() => this.start(), 500);
    });
    sent.end();
  }

  stop(): void {
    this.stopped = true;
    this.agent.destroy();
  }

  private answered(pulled: Pulled): void {
    this.answers++;
    if (pulled.status !== 200) this.failures++;
    else if (pulled.version !== null) this.version = pulled.version;
    this.onAnswer?.(pulled);
    // Like the edge agent: at once after an answer, half a second after a refusal.
    if (!this.stopped) setTimeout(() => this.start(), pulled.status === 200 ? 0 : 500);
  }
}

export type IdleFleetCost = { percent: number; answers: number; failures: number; residentMiB: number };

/**
 * Opens `count` idle edges on `version` against the core at `base` (pid `pid`), lets them settle
 * (`settleSeconds`: every first request authenticated and held), then measures the core's CPU over
 * `seconds`. The edges stay open (the caller stops them) so that a publish can be timed next.
 */
export async function holdIdleFleet(options: { base: string; pid: number; edgeToken: string; count: number; version: number; wait: number; seconds: number; settleSeconds?: number; idPrefix?: string }): Promise<{ edges: IdleEdge[]; cost: IdleFleetCost }> {
  const base = new URL(options.base);
  const edges = Array.from({ length: options.count }, (_, n) => new IdleEdge(base, options.edgeToken, `${options.idPrefix ?? 'idle-edge'}-${n}`, options.version, options.wait));
  for (const edge of edges) edge.start();
  await new Promise((resolve) => setTimeout(resolve, (options.settleSeconds ?? 5) * 1000));
  const percent = await cpuPercent(options.pid, options.seconds);
  const cost = {
    percent,
    answers: edges.reduce((sum, edge) => sum + edge.answers, 0),
    failures: edges.reduce((sum, edge) => sum + edge.failures, 0),
    residentMiB: await residentMiB(options.pid),
  };
  return { edges, cost };
}

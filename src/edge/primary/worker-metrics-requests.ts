import type { Worker } from 'node:cluster';
import type { WorkerAnswers } from '../metrics/edge-scrape.js';
import { sendTo } from './send-to-worker.js';

/** How long a scrape waits for the workers' metrics; a worker that has not answered by then is left out (counted as missing). */
const ANSWER_WAIT_MS = 2000;

type Pending = { answers: object[][]; waiting: Set<number>; done: () => void };

/**
 * Asks every worker for its metrics over the cluster's IPC channel (the edge's own messages,
 * messages.ts) and collects the answers of one scrape. A worker that is busy, dying or gone
 * costs the scrape its counts, never the scrape itself.
 */
export class WorkerMetricsRequests {
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;

  /** Asks `workers` and resolves with the answers in, once all answered or ANSWER_WAIT_MS passed. */
  ask(workers: Worker[]): Promise<WorkerAnswers> {
    const id = ++this.nextId;
    const connected = workers.filter((worker) => worker.isConnected());
    return new Promise((resolve) => {
      const entry: Pending = { answers: [], waiting: new Set(connected.map((worker) => worker.id)), done: () => undefined };
      const timer = setTimeout(() => entry.done(), ANSWER_WAIT_MS);
      entry.done = () => {
        clearTimeout(timer);
        this.pending.delete(id);
        resolve({ metrics: entry.answers, missing: entry.waiting.size });
      };
      this.pending.set(id, entry);
      if (entry.waiting.size === 0) return entry.done();
      for (const worker of connected) sendTo(worker, { t: 'metrics-request', id });
    });
  }

  /** A worker's answer to scrape `id` (late answers are ignored). */
  answered(worker: Worker, id: number, metrics: object[]): void {
    const entry = this.pending.get(id);
    if (!entry || !entry.waiting.delete(worker.id)) return;
    entry.answers.push(metrics);
    if (entry.waiting.size === 0) entry.done();
  }
}

import http from 'node:http';

export type OpenLoopResult = { sent: number; failed: number; p50: number; p99: number; max: number };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * Open-loop load, like a fleet of edges polling on their own clocks: one request
 * every 1000/rate ms for `seconds`, whether or not earlier ones have answered, over
 * keep-alive connections. Latency is measured per request (ms), so queueing shows.
 */
export async function openLoop(base: string, options: { rate: number; seconds: number; request: () => { method: string; path: string; headers: Record<string, string> } }): Promise<OpenLoopResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const latencies: number[] = [];
  let failed = 0;
  const send = () =>
    new Promise<void>((resolve) => {
      const { method, path, headers } = options.request();
      const started = performance.now();
      const request = http.request(`${base}${path}`, { method, headers, agent }, (response) => {
        response.resume();
        response.on('end', () => {
          if ((response.statusCode ?? 500) >= 300) failed++;
          latencies.push(performance.now() - started);
          resolve();
        });
      });
      request.on('error', () => {
        failed++;
        resolve();
      });
      request.end();
    });
  const total = options.rate * options.seconds;
  const interval = 1000 / options.rate;
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + i * interval;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    inFlight.push(send());
  }
  await Promise.all(inFlight);
  agent.destroy();
  const sorted = latencies.sort((a, b) => a - b);
  return { sent: total, failed, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] };
}

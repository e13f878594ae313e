import http, { type Server } from 'node:http';
import type { Logger } from 'pino';

/** Where the edge serves its metrics, on the metrics port only. */
export const EDGE_METRICS_PATH = '/metrics';

/** What the listener serves: the edge's metrics in Prometheus's text format. */
export type MetricsSource = { contentType: string; exposition(): Promise<string> };

/**
 * The edge's metrics listener (CDN_EDGE_METRICS_PORT on CDN_EDGE_METRICS_BIND, loopback by default),
 * in the primary: its own port, never the customer ports, where /metrics is the sites' path.
 * GET or HEAD /metrics answers the metrics; anything else 404 or 405. Resolves once listening;
 * rejects when the port cannot be had (the edge does not start half-observable).
 */
export async function startMetricsListener(port: number, host: string, source: MetricsSource, logger: Logger): Promise<Server> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== EDGE_METRICS_PATH) return void res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Only /metrics is served here.\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end();
    source.exposition().then(
      (text) => res.writeHead(200, { 'content-type': source.contentType, 'cache-control': 'no-store' }).end(req.method === 'HEAD' ? undefined : text),
      (error: Error) => {
        logger.error({ err: error }, 'edge metrics scrape failed');
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('The edge could not collect its metrics.\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

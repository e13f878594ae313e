import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Json, TestCore } from './core.js';

/** A real origin server on a loopback port that records the requests it answered. */
export class TestOrigin {
  readonly requests: { method: string; url: string; headers: IncomingMessage['headers'] }[] = [];

  private constructor(
    readonly server: http.Server,
    readonly port: number,
  ) {}

  /** Starts an origin answering with `handler` (default: `origin <name> <url>` with no cache headers). */
  static async start(name: string, handler?: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestOrigin> {
    let origin: TestOrigin | undefined;
    const server = http.createServer((req, res) => {
      origin!.requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers });
      if (handler) return handler(req, res);
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain', server: 'TestOrigin/1.0', 'x-powered-by': 'Express 4.0' }).end(`origin ${name} ${req.url}\n`);
    });
    server.keepAliveTimeout = 1000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = new TestOrigin(server, (server.address() as AddressInfo).port);
    return origin;
  }

  count(url: string): number {
    return this.requests.filter((request) => request.url === url).length;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** Creates an active domain whose apex and `www` are proxied, with one primary origin on `originPort`; returns the domain. */
export async function createSite(core: TestCore, apex: string, originPort: number, origin: Record<string, unknown> = {}): Promise<Json> {
  const domain = await core.createDomain(apex);
  await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true });
  await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: '@', content: '192.0.2.10', proxied: true }, 201);
  await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'CNAME', name: 'www', content: apex, proxied: true }, 201);
  await core.post(`/api/v1/domains/${domain.id}/origins`, { host: '127.0.0.1', scheme: 'http', port: originPort, ...origin }, 201);
  return domain;
}

/** Publishes the database state now; returns the active version. */
export async function publish(core: TestCore): Promise<number> {
  return (await core.post('/api/v1/config/snapshots/rebuild', undefined)).data.version;
}

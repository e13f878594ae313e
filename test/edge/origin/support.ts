// Test helpers: real origin servers on 127.0.0.1, snapshot origins and domains,
// and a minimal edge (a node:http server running the origin phase and the
// hygiene phase through the pipeline runner) to drive the proxy with real clients.
import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import pino, { type Logger } from 'pino';
import { compileActiveConfig, type ActiveDomain } from '../../../src/edge/config/active-config.js';
import { originPhase } from '../../../src/edge/origin/origin-phase.js';
import type { OriginFetcher } from '../../../src/edge/origin/proxy.js';
import { RequestContext } from '../../../src/edge/pipeline/context.js';
import { hygienePhase } from '../../../src/edge/pipeline/hygiene-phase.js';
import { PipelineRunner } from '../../../src/edge/pipeline/runner.js';
import { SNAPSHOT_RULE_KINDS, type SnapshotDomain, type SnapshotOrigin } from '../../../src/shared/snapshot.js';

export type TestServer = { port: number; requests: number; close(): Promise<void> };

/** Listens `server` on 127.0.0.1:0 and counts its requests. */
export async function listen(server: http.Server): Promise<TestServer> {
  const handle = { port: 0, requests: 0, close: () => closeServer(server) };
  server.on('request', () => handle.requests++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  handle.port = (server.address() as AddressInfo).port;
  return handle;
}

async function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections?.();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A plain HTTP origin answering with `handler`. */
export function startOrigin(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestServer> {
  return listen(http.createServer(handler));
}

/** A port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = await startOrigin(() => {});
  await server.close();
  return server.port;
}

/** A snapshot origin on 127.0.0.1 with the core's defaults, `overrides` applied. */
export function origin(overrides: Partial<SnapshotOrigin> & { port: number }): SnapshotOrigin {
  return {
    id: randomUUID(),
    host: '127.0.0.1',
    scheme: 'http',
    role: 'primary',
    weight: 100,
    host_header: null,
    health_status: 'unknown',
    health_check_path: null,
    timeouts: { connect_ms: 3000, read_ms: 30000 },
    retries: { max: 1, non_idempotent: false, budget_percent: 20, budget_min_per_second: 5 },
    circuit_breaker: { failure_threshold: 5, window_seconds: 30, cooldown_seconds: 30 },
    limits: { max_connections: null, max_pending_requests: null },
    shield: null,
    ...overrides,
  };
}

/** The snapshot domain `example.test` with `origins`. */
export function snapshotDomain(origins: SnapshotOrigin[], shield: SnapshotDomain['origin_shield'] = null): SnapshotDomain {
  return {
    id: randomUUID(),
    domain: 'example.test',
    hostnames: ['example.test', 'www.example.test'],
    origin_shield: shield,
    origins,
    cache: {},
    ssl: {},
    certificates: [],
    rules: Object.fromEntries(SNAPSHOT_RULE_KINDS.map((kind) => [kind, []])) as unknown as SnapshotDomain['rules'],
  };
}

/** `snapshotDomain` compiled as the pipeline sees it. */
export function activeDomain(origins: SnapshotOrigin[], shield: SnapshotDomain['origin_shield'] = null): ActiveDomain {
  const source = snapshotDomain(origins, shield);
  const config = compileActiveConfig({ schema_version: 2, edge: { challenge_difficulty: 3 }, domains: [source], purges: [] }, 1, 'test');
  return config.domainsById.get(source.id)!;
}

export type TestEdge = TestServer & { contexts: RequestContext[] };

/** An edge serving `domain` through `fetcher` with the origin phase; failures go to the runner's error funnel, logged to `logger`. */
export async function startEdge(domain: ActiveDomain, fetcher: OriginFetcher, logger: Logger = pino({ level: 'silent' })): Promise<TestEdge> {
  const runner = new PipelineRunner([originPhase(fetcher)], [hygienePhase], () => {}, logger);
  const contexts: RequestContext[] = [];
  const server = http.createServer((req, res) => {
    const ctx = new RequestContext(req, res, { config: { domainsById: new Map() } as never, requestId: randomUUID(), clientIp: '203.0.113.9', peer: '203.0.113.9', scheme: 'http' });
    const [path, query = ''] = (req.url ?? '/').split('?');
    ctx.host = (req.headers.host ?? '').replace(/:\d+$/, '');
    ctx.path = path;
    ctx.query = query;
    ctx.domain = domain;
    contexts.push(ctx);
    runner.run(ctx);
  });
  const handle = await listen(server);
  return Object.assign(handle, { contexts });
}

export type Reply = { status: number; headers: http.IncomingHttpHeaders; body: string };

/** Sends a request to 127.0.0.1:`port` with Host example.test and reads the whole reply. */
export function request(port: number, options: { method?: string; path?: string; headers?: http.OutgoingHttpHeaders; body?: Buffer | string | Readable } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path ?? '/', headers: { host: 'example.test', ...options.headers }, agent: false });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    if (options.body instanceof Readable) options.body.pipe(req);
    else req.end(options.body);
  });
}

/** The edge settings the fetcher reads, with small defaults for tests. */
export const TEST_CONFIG = { edgeProxyConnectTimeoutSeconds: 3, edgeProxyReadTimeoutSeconds: 30, edgeClientMaxBodyBytes: 1024 * 1024 };

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

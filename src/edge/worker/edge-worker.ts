import { randomBytes } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { Config } from '../../config/load.js';
import { canonicalIp } from '../../shared/ip-address.js';
import type { ConfigSnapshot } from '../../shared/snapshot.js';
import { compileActiveConfig, domainForHost, type ActiveConfig } from '../config/active-config.js';
import { RequestContext } from '../pipeline/context.js';
import { errorPage } from '../pipeline/error-page.js';
import { createEdgeEndpoints } from './edge-endpoints.js';
import type { AgentStatusView, ToPrimary, ToWorker } from './messages.js';
import { buildWorkerPipeline } from './pipeline-assembly.js';
import { hostLines, hostOf, splitTarget } from './request-target.js';
import { TelemetryBuffer } from './telemetry-buffer.js';

const EDGE_PATHS = new Set(['/health', '/ready']);
// TRACE echoes the request, cookies included, back to a page that can read it (cross-site tracing).
const REFUSED_METHODS = new Set(['TRACE', 'TRACK']);
const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';
const MAX_HEADER_BYTES = 16384;
/** How long a draining worker lets requests in flight finish before closing their connections. */
const DRAIN_MS = 2000;

/** Each worker's share of the room the agent's telemetry queues have left. */
function roomPerWorker(status: AgentStatusView, maxItems: number, workers: number): { usage: number; security: number; observations: number } {
  const room = (queue: Record<string, unknown> | undefined) => Math.max(0, maxItems - (Number(queue?.depth) || 0)) / workers;
  return { usage: room(status.telemetry.usage), security: room(status.telemetry.security), observations: room(status.telemetry.origin_health) };
}

/** Request ids: a random per-worker prefix and a counter (unique, and cheaper than a UUID per request). */
function requestIds(): () => string {
  const prefix = randomBytes(6).toString('hex');
  let counter = 0;
  return () => `${prefix}-${(counter++).toString(36)}`;
}

/**
 * One edge worker: a raw `node:http` server (shared listener) whose requests run
 * the pipeline against the active snapshot, which the primary sends over IPC.
 * The edge's own endpoints (Express) answer `/__cdn_reload_config`, and `/health`
 * and `/ready` for hosts no domain serves.
 */
export async function runEdgeWorker(config: Config, logger: Logger): Promise<void> {
  // After the primary is gone (shutdown, crash) there is nobody to tell: the message is dropped.
  const send = (message: ToPrimary) => {
    if (process.connected) process.send?.(message, undefined, undefined, () => undefined);
  };
  let active: ActiveConfig | undefined;
  let agentStatus: AgentStatusView | undefined;
  const reloads = new Map<number, (result: Record<string, unknown>) => void>();
  let reloadIds = 0;
  const workers = config.edgeWorkers || 1;
  const telemetry = new TelemetryBuffer(Math.max(100, Math.ceil(config.edgeTelemetryQueueMaxItems / workers)), send);
  const pipeline = await buildWorkerPipeline({ config, logger, telemetry, notifyInvalidation: (targets) => send({ t: 'invalidate', targets }) });
  const endpoints = createEdgeEndpoints({
    active: () => active,
    agent: () => agentStatus,
    reload: () =>
      new Promise((resolve) => {
        const id = ++reloadIds;
        reloads.set(id, resolve);
        send({ t: 'reload', id });
        setTimeout(() => reloads.delete(id) && resolve({ outcome: 'unreachable', detail: 'the edge agent did not answer within 10 s' }), 10000).unref();
      }),
  });
  const nextId = requestIds();

  function activate(message: Extract<ToWorker, { t: 'snapshot' }>): void {
    if (active && active.version === message.version && active.checksum === message.checksum) return;
    try {
      const snapshot = JSON.parse(message.json) as ConfigSnapshot;
      const next = compileActiveConfig(snapshot, message.version, message.checksum);
      const purgeIds = pipeline.onConfig(next, active === undefined);
      active = next;
      send({ t: 'activated', version: next.version, purgeIds });
      logger.info({ version: next.version, domains: next.domainsById.size }, 'config activated');
    } catch (error) {
      logger.error({ err: error, version: message.version }, 'config activation failed');
      send({ t: 'activation-failed', version: message.version, error: (error as Error).message });
    }
  }

  process.on('message', (message: ToWorker) => {
    switch (message.t) {
      case 'snapshot':
        return activate(message);
      case 'status':
        agentStatus = message.status;
        telemetry.setRoom(roomPerWorker(message.status, config.edgeTelemetryQueueMaxItems, workers));
        return;
      case 'probe':
        return pipeline.onProbe(message.observations);
      case 'invalidate':
        return pipeline.onInvalidate(message.targets);
      case 'drain':
        return void drain().then(() => send({ t: 'drained' }));
      case 'reload-result': {
        const resolve = reloads.get(message.id);
        reloads.delete(message.id);
        resolve?.(message.result);
        return;
      }
    }
  });

  function contextOf(req: IncomingMessage, res: ServerResponse, config: ActiveConfig): RequestContext | undefined {
    const target = splitTarget(req.url ?? '/');
    const peer = canonicalIp(req.socket.remoteAddress ?? '') ?? req.socket.remoteAddress ?? '';
    const ctx = new RequestContext(req, res, { config, requestId: nextId(), clientIp: pipeline.clientIp(req, peer), scheme: 'http' });
    if (!target) return undefined;
    ctx.path = target.path;
    ctx.query = target.query;
    ctx.host = hostOf(target.host ?? req.headers.host);
    return ctx;
  }

  // A request refused whatever the site: several Host lines (which one would the origin see?), or TRACE.
  function refusalOf(req: IncomingMessage): { status: number; detail: string; headers?: Record<string, string> } | undefined {
    if (REFUSED_METHODS.has(req.method ?? '')) return { status: 405, detail: 'This method is not allowed through the CDN.', headers: { allow: ALLOWED_METHODS } };
    if (hostLines(req.rawHeaders) > 1) return { status: 400, detail: 'The request has more than one Host header.' };
    return undefined;
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const url = req.url ?? '/';
    if (url.startsWith('/__cdn_reload_config')) return void endpoints(req, res);
    if (!active) {
      if (EDGE_PATHS.has(url.split('?')[0])) return void endpoints(req, res);
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'retry-after': '5' }).end('This CDN edge has no configuration yet.\n');
      return;
    }
    const ctx = contextOf(req, res, active);
    const refusal = ctx ? refusalOf(req) : undefined;
    if (!ctx || refusal) {
      const refused = ctx ?? new RequestContext(req, res, { config: active, requestId: nextId(), clientIp: req.socket.remoteAddress ?? '', scheme: 'http' });
      refused.response = refusal ? errorPage(refused, refusal.status, refusal.detail, refusal.headers) : errorPage(refused, 400, 'The request target is not a path.');
      return pipeline.answer(refused);
    }
    if (EDGE_PATHS.has(ctx.path) && !domainForHost(active, ctx.host)) return void endpoints(req, res);
    pipeline.run(ctx);
  }

  const server = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES, keepAliveTimeout: 65000, headersTimeout: 20000, requestTimeout: 0 }, handle);
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    // The server's own error handling leaves the socket with the upgrade: a client reset must not kill the worker.
    socket.on('error', () => socket.destroy());
    if (!active) return void socket.end('HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    const res = new http.ServerResponse(req);
    const ctx = contextOf(req, res, active);
    if (!ctx) return void socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    pipeline.upgrade(ctx, socket, head);
  });
  // CONNECT would make the edge an open tunnel: refused, and the connection closed.
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    socket.on('error', () => socket.destroy());
    socket.end(`HTTP/1.1 405 Method Not Allowed\r\nallow: ${ALLOWED_METHODS}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
    socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
  });
  await new Promise<void>((resolve) => server.listen(config.edgeHttpPort, config.bind, resolve));
  // Messages sent before the handler above existed would be lost: the primary sends the snapshot on this.
  send({ t: 'listening' });

  // Stops taking requests, lets those in flight finish (at most DRAIN_MS), then sends the telemetry they made.
  let draining: Promise<void> | undefined;
  function drain(): Promise<void> {
    draining ??= new Promise<void>((resolve) => {
      const closeAll = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
      server.close(() => {
        clearTimeout(closeAll);
        resolve();
      });
      server.closeIdleConnections();
    }).then(() => telemetry.flush());
    return draining;
  }

  // Shutdown is the primary's to run (it drains every worker, then stops the agent); alone, a worker drains itself.
  const stop = () => {
    void drain().finally(() => {
      telemetry.stop();
      pipeline.close();
      // Exit once the primary has everything: IPC writes in order, so this one's callback comes after the telemetry's.
      if (process.connected) process.send?.({ t: 'drained' } satisfies ToPrimary, undefined, undefined, () => process.exit(0));
      else process.exit(0);
    });
    setTimeout(() => process.exit(0), DRAIN_MS + 3000).unref();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', () => undefined);
  process.once('disconnect', stop);
}

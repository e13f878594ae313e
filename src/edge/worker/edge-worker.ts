import { randomBytes } from 'node:crypto';
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { Config } from '../../config/load.js';
import { canonicalIp } from '../../shared/ip-address.js';
import type { ConfigSnapshot } from '../../shared/snapshot.js';
import { compileActiveConfig, domainForHost, patchActiveConfig, type ActiveConfig } from '../config/active-config.js';
import { RequestContext } from '../pipeline/context.js';
import { errorPage } from '../pipeline/error-page.js';
import { rawResponseHead } from '../pipeline/raw-head.js';
import { createEdgeEndpoints } from './edge-endpoints.js';
import type { AgentStatusView, ToPrimary, ToWorker } from './messages.js';
import { buildWorkerPipeline } from './pipeline-assembly.js';
import { ALLOWED_METHODS, dropClientClaims, isRefusal, parseRequestHead, schemeOf, type HeadRefusal, type RequestHead } from '../pipeline/request-head.js';
import { hasRequestBody } from '../origin/forward-headers.js';
import { TelemetryBuffer } from './telemetry-buffer.js';
import { listenOptions } from './listen-options.js';
import { InvalidationBatch } from '../cache/invalidation-batch.js';
import type { CertificateKeys } from '../../shared/certificate-key-envelope.js';
import { CertificateTable } from '../tls/certificate-table.js';
import { createTlsServer, misdirected } from '../tls/tls-server.js';
import type { TLSSocket } from 'node:tls';
import { edgeMetricsDomains } from '../../config/load.js';
import { WorkerMetrics } from '../metrics/worker-metrics.js';

/** The edge's own status endpoints (edge-endpoints.ts). Compared, not looked up in a set: a path is a new string, whose hash a lookup would compute on every request. */
function isEdgePath(path: string): boolean {
  return path === '/health' || path === '/ready';
}
const RELOAD_PATH = '/__cdn_reload_config';
// A request line with a method token Node's parser does not know (TRACK, BREW…): the documented 405, not a 400.
const UNKNOWN_METHOD_LINE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32} [^ \r\n]+ HTTP\/1\.[01]\r?\n/;
const MAX_HEADER_BYTES = 16384;
/** How long a draining worker lets requests in flight finish before closing their connections. */
const DRAIN_MS = 2000;

/** Each worker's share of the room the agent's telemetry queues have left. */
function roomPerWorker(status: AgentStatusView, maxItems: number, workers: number): { usage: number; security: number; observations: number } {
  const room = (queue: Record<string, unknown> | undefined) => Math.max(0, maxItems - (Number(queue?.depth) || 0)) / workers;
  return { usage: room(status.telemetry.usage), security: room(status.telemetry.security), observations: room(status.telemetry.origin_health) };
}

/** A WebSocket opening handshake (RFC 6455 §4.1): a GET whose Upgrade names websocket. The only Upgrade the edge tunnels. */
function isWebSocketHandshake(req: IncomingMessage): boolean {
  return req.method === 'GET' && /(?:^|,)\s*websocket\s*(?:,|$)/i.test(req.headers.upgrade ?? '');
}

// The canonical address of each connection's peer, worked out on its first request, not on each.
const peers = new WeakMap<Socket, string>();

function peerOf(socket: Socket): string {
  let peer = peers.get(socket);
  if (peer === undefined) {
    const address = socket.remoteAddress ?? '';
    peer = canonicalIp(address) ?? address;
    peers.set(socket, peer);
  }
  return peer;
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
  let certificateKeys: CertificateKeys = {};
  const certificates = new CertificateTable((id, error) => logger.error({ certificate: id, err: error }, 'a delivered certificate cannot be served'));
  let agentStatus: AgentStatusView | undefined;
  const reloads = new Map<number, (result: Record<string, unknown>) => void>();
  let reloadIds = 0;
  const workers = config.edgeWorkers || 1;
  const telemetry = new TelemetryBuffer(Math.max(100, Math.ceil(config.edgeTelemetryQueueMaxItems / workers)), send);
  const invalidations = new InvalidationBatch((batch) => send({ t: 'invalidate', invalidations: batch }));
  // Without a metrics listener nothing is counted.
  const metrics = config.edgeMetricsPort > 0 ? new WorkerMetrics(edgeMetricsDomains(config)) : undefined;
  const pipeline = await buildWorkerPipeline({ config, logger, telemetry, metrics, notifyInvalidation: (batch) => invalidations.add(batch) });
  const nextId = requestIds();
  const endpoints = createEdgeEndpoints({
    requestId: nextId,
    active: () => active,
    agent: () => agentStatus,
    tls: () => certificates.status(),
    reload: () =>
      new Promise((resolve) => {
        const id = ++reloadIds;
        reloads.set(id, resolve);
        send({ t: 'reload', id });
        setTimeout(() => reloads.delete(id) && resolve({ outcome: 'unreachable', detail: 'the edge agent did not answer within 10 s' }), 10000).unref();
      }),
  });

  function activate(message: Extract<ToWorker, { t: 'snapshot' }>): void {
    if (active && active.version === message.version && active.checksum === message.checksum) return;
    try {
      switchTo(compileActiveConfig(JSON.parse(message.json) as ConfigSnapshot, message.version, message.checksum), message.keys);
    } catch (error) {
      logger.error({ err: error, version: message.version }, 'config activation failed');
      send({ t: 'activation-failed', version: message.version, error: (error as Error).message });
    }
  }

  // Only the changed domains are compiled. A worker on another version, or one the change does not
  // fit, asks for the whole snapshot, which is compiled from scratch.
  function activateChange(message: Extract<ToWorker, { t: 'snapshot-change' }>): void {
    if (active && active.version === message.version && active.checksum === message.checksum) return;
    const { change } = message;
    if (!active || active.version !== change.since || active.checksum !== change.sinceChecksum) return send({ t: 'need-snapshot' });
    try {
      switchTo(patchActiveConfig(active, change, message.version, message.checksum), message.keys ?? certificateKeys);
    } catch (error) {
      logger.warn({ err: error, version: message.version }, 'config change not applied; asking for the whole snapshot');
      send({ t: 'need-snapshot' });
    }
  }

  function switchTo(next: ActiveConfig, keys: CertificateKeys): void {
    const purgeIds = pipeline.onConfig(next, active === undefined);
    certificateKeys = keys;
    certificates.update(next, certificateKeys);
    active = next;
    send({ t: 'activated', version: next.version, purgeIds });
    logger.info({ version: next.version, domains: next.domainsById.size }, 'config activated');
  }

  process.on('message', (message: ToWorker) => {
    switch (message.t) {
      case 'snapshot':
        return activate(message);
      case 'snapshot-change':
        return activateChange(message);
      case 'certificate-keys':
        certificateKeys = message.keys;
        return certificates.update(active, certificateKeys);
      case 'status':
        agentStatus = message.status;
        telemetry.setRoom(roomPerWorker(message.status, config.edgeTelemetryQueueMaxItems, workers));
        return;
      case 'probe':
        return pipeline.onProbe(message.observations);
      case 'invalidate':
        return pipeline.onInvalidate(message.invalidations);
      case 'drain':
        return void drain().then(() => send({ t: 'drained' }));
      case 'metrics-request':
        return void metrics?.registry.getMetricsAsJSON().then((json) => send({ t: 'metrics', id: message.id, metrics: json }));
      case 'reload-result': {
        const resolve = reloads.get(message.id);
        reloads.delete(message.id);
        resolve?.(message.result);
        return;
      }
    }
  });

  function contextOf(req: IncomingMessage, res: ServerResponse, config: ActiveConfig, head: RequestHead | HeadRefusal): RequestContext {
    const peer = peerOf(req.socket);
    const headers = req.headers;
    const ctx = new RequestContext(req, res, { config, requestId: nextId(), clientIp: pipeline.clientIp(headers, peer), peer, scheme: schemeOf(req), headers });
    if (isRefusal(head)) return ctx;
    ctx.host = head.host;
    ctx.path = head.path;
    ctx.rawPath = head.rawPath;
    ctx.query = head.query;
    // A header rule or a Vary on Host reads the normalised host too (an absolute-form target's, not the header's).
    if (head.host) headers.host = head.host;
    dropClientClaims(headers, req.rawHeaders);
    return ctx;
  }

  // The edge's own endpoints see the canonical path, as every other decision does.
  function toEndpoints(req: IncomingMessage, res: ServerResponse, head: RequestHead): void {
    req.url = head.query ? `${head.path}?${head.query}` : head.path;
    endpoints(req, res);
  }

  // Before the first snapshot: the edge's status endpoints, or a 503 (a refusal keeps its own status).
  function answerWithoutConfig(req: IncomingMessage, res: ServerResponse, head: RequestHead | HeadRefusal): void {
    if (!isRefusal(head) && isEdgePath(head.path)) return toEndpoints(req, res, head);
    const headers = { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'x-request-id': nextId() };
    if (isRefusal(head)) return void res.writeHead(head.status, { ...headers, ...head.headers }).end(`${head.detail}\n`);
    res.writeHead(503, { ...headers, 'retry-after': '5' }).end('This CDN edge has no configuration yet.\n');
  }

  // Over TLS, a host the connection's certificate does not cover is refused (tls-server.ts, misdirected).
  function checkedHead(req: IncomingMessage, head: RequestHead | HeadRefusal): RequestHead | HeadRefusal {
    if (isRefusal(head) || (req.socket as TLSSocket).encrypted !== true || !misdirected(certificates, req.socket as TLSSocket, head.host)) return head;
    return { status: 421, detail: 'The certificate of this connection does not cover this host: open a new connection for it.' };
  }

  // `parsed`: the door's verdict when the caller has it already.
  function handle(req: IncomingMessage, res: ServerResponse, parsed: RequestHead | HeadRefusal = parseRequestHead(req)): void {
    const head = checkedHead(req, parsed);
    if (!isRefusal(head) && head.path === RELOAD_PATH) return toEndpoints(req, res, head);
    if (!active) return answerWithoutConfig(req, res, head);
    const ctx = contextOf(req, res, active, head);
    if (isRefusal(head)) {
      ctx.response = errorPage(ctx, head.status, head.detail, head.headers);
      return pipeline.answer(ctx);
    }
    if (isEdgePath(ctx.path) && !domainForHost(active, ctx.host)) return toEndpoints(req, res, head);
    pipeline.run(ctx);
  }

  // An Upgrade request that is not a WebSocket handshake is answered like any request (its
  // Upgrade ignored, as nginx does) on a response of its own; the connection closes after it.
  // `head`: the door's verdict on a WebSocket handshake, when it was parsed already.
  function answerOnSocket(req: IncomingMessage, socket: Socket, head: RequestHead | HeadRefusal = parseRequestHead(req)): void {
    const res = new http.ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket);
    res.once('finish', () => socket.end());
    // Node stops parsing at an Upgrade request's head: a body after it could not be read as one.
    handle(req, res, hasRequestBody(req.headers) ? { status: 400, detail: 'An Upgrade request with a body is not accepted.' } : head);
  }

  const serverOptions = { maxHeaderSize: MAX_HEADER_BYTES, keepAliveTimeout: 65000, headersTimeout: 20000, requestTimeout: 0 };
  const servers: Server[] = [http.createServer(serverOptions, handle)];
  // Port 0: no TLS listener.
  if (config.edgeHttpsPort > 0) servers.push(createTlsServer(certificates, serverOptions, handle));
  for (const server of servers) serve(server);

  // Both listeners answer alike: the scheme is the only difference (schemeOf).
  function serve(server: Server): void {
    server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
      // The server's own error handling leaves the socket with the upgrade: a client reset must not kill the worker.
      socket.on('error', () => socket.destroy());
      const parsed = active && isWebSocketHandshake(req) ? checkedHead(req, parseRequestHead(req)) : undefined;
      if (!active || parsed === undefined || isRefusal(parsed)) return answerOnSocket(req, socket, parsed);
      pipeline.upgrade(contextOf(req, new http.ServerResponse(req), active, parsed), socket, head);
    });
    // CONNECT would make the edge an open tunnel: refused, and the connection closed.
    server.on('connect', (_req: IncomingMessage, socket: Socket) => {
      socket.on('error', () => socket.destroy());
      socket.end(rawAnswer(405, { allow: ALLOWED_METHODS }));
    });
    // Node answers Expect: 100-continue at once, also for a request queued behind others on the connection,
    // whose 100 then lands inside its own answer, between head and body. The edge sends it only to the
    // connection's current request (RFC 9110 §10.1.1 lets a server omit it); a queued one gets none, and
    // its connection is closed after the answer (Node's rule: the client may still send a body).
    server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
      if (res.socket) res.writeContinue();
      handle(req, res);
    });
    server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket) => {
      if (!socket.writable) return socket.destroy();
      if (error.code === 'HPE_HEADER_OVERFLOW') return void socket.end(rawAnswer(431));
      if (error.code === 'HPE_INVALID_METHOD' && UNKNOWN_METHOD_LINE.test(error.rawPacket?.toString('latin1', 0, 8192) ?? '')) {
        return void socket.end(rawAnswer(405, { allow: ALLOWED_METHODS }));
      }
      socket.end(rawAnswer(400));
    });
  }
  // An answer written before any request object exists, carrying a request id like every other.
  function rawAnswer(status: number, headers: Record<string, string> = {}): Buffer {
    return rawResponseHead(status, { ...headers, 'x-request-id': nextId(), 'cache-control': 'no-store', connection: 'close', 'content-length': '0' });
  }
  const ports = [config.edgeHttpPort, config.edgeHttpsPort];
  await Promise.all(servers.map((server, index) => new Promise<void>((resolve) => server.listen(listenOptions(ports[index], config.bind), resolve))));
  // Messages sent before the handler above existed would be lost: the primary sends the snapshot on this.
  send({ t: 'listening' });

  // Stops taking requests, lets those in flight finish (at most DRAIN_MS), then sends the telemetry they made.
  let draining: Promise<void> | undefined;
  function drain(): Promise<void> {
    draining ??= Promise.all(servers.map(closeGracefully)).then(() => {
      invalidations.flush();
      telemetry.flush();
    });
    return draining;
  }

  function closeGracefully(server: Server): Promise<void> {
    return new Promise<void>((resolve) => {
      const closeAll = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
      server.close(() => {
        clearTimeout(closeAll);
        resolve();
      });
      server.closeIdleConnections();
    });
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

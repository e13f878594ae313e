// WebSocket (any Upgrade) pass-through: the handshake goes to an origin chosen
// like any request's; on 101 the two sockets are joined byte for byte and no
// timeout applies any more (a quiet WebSocket is a normal one); any other
// answer is passed back and the connection closed. Failures before the origin
// answered close the client connection after a bare 502/503/504 status line.
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Config } from '../../config/load.js';
import type { SnapshotOrigin } from '../../shared/snapshot.js';
import type { ActiveDomain } from '../config/active-config.js';
import type { OriginBreakers } from './breaker.js';
import { forwardHeaders } from './forward-headers.js';
import type { OriginHealthView } from './health-view.js';
import { failureOutcome, responseOutcome } from './observation.js';
import { socketHost, tlsName, type OriginTls } from './origin-agents.js';
import { ClientClosedError, OriginError, errorPageFor, failureKindOf, isPassableStatus } from './origin-error.js';
import type { RetryBudget } from './retry-budget.js';
import { defaultSeed, orderOrigins, retriesTimeoutElsewhere } from './selection.js';

/** What the host, IP and WAF phases established about the upgrade request. */
export type UpgradeRequest = { domain: ActiveDomain; host: string; clientIp: string; scheme: 'http' | 'https' };

export type UpgradeDeps = {
  config: Pick<Config, 'edgeProxyConnectTimeoutSeconds' | 'edgeProxyReadTimeoutSeconds'>;
  health: OriginHealthView;
  breakers: OriginBreakers;
  tls?: OriginTls;
  /** The worker's retry budget (the fetcher's), when retries should count against it. */
  budget?: RetryBudget;
  /** This edge's CDN-Loop pseudonym, as for proxied requests. */
  cdnLoop?: string;
};

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'te', 'trailer', 'upgrade']);

function headBlock(status: number, message: string, rawHeaders: string[], keepUpgrade: boolean): string {
  let head = `HTTP/1.1 ${status} ${message}\r\n`;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    if (!keepUpgrade && HOP_BY_HOP.has(name)) continue;
    head += `${rawHeaders[i]}: ${rawHeaders[i + 1]}\r\n`;
  }
  return `${head}${keepUpgrade ? '' : 'Connection: close\r\n'}\r\n`;
}

// Answers the client with the status line of `error` and closes; returns that status.
function refuse(socket: Duplex, error: OriginError): number {
  const { status } = errorPageFor(error.kind);
  const reason = status === 504 ? 'Gateway Timeout' : status === 503 ? 'Service Unavailable' : 'Bad Gateway';
  if (socket.writable) socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  socket.destroy();
  return status;
}

/** The status logged for a client that left before it had an answer (as for any request). */
const CLIENT_CLOSED = 499;

type Joined = { status: number };

// One handshake attempt; resolves once the client has the origin's answer.
function attemptUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, target: UpgradeRequest, origin: SnapshotOrigin, deps: UpgradeDeps): Promise<Joined> {
  return new Promise((resolve, reject) => {
    const connectMs = Math.min(origin.timeouts.connect_ms, deps.config.edgeProxyConnectTimeoutSeconds * 1000);
    const readMs = Math.min(origin.timeouts.read_ms, deps.config.edgeProxyReadTimeoutSeconds * 1000);
    const clientHost = req.headers.host ?? target.host;
    const headers = forwardHeaders(req.headers, origin, { domain: target.domain, clientHost, clientIp: target.clientIp, scheme: target.scheme, upgrade: true, cdnLoop: deps.cdnLoop });
    const options = { agent: false as const, host: socketHost(origin.host), port: origin.port, method: req.method, path: req.url, headers };
    const request = origin.scheme === 'https' ? https.request({ ...options, servername: tlsName(origin, target.host), ca: deps.tls?.ca }) : http.request(options);
    let stage: 'connecting' | 'handshaking' | 'ready' = 'connecting';
    const fail = (kind: OriginError['kind'], message: string): void => void request.destroy(new OriginError(kind, message, origin.id));
    const connectTimer = setTimeout(() => fail('timeout', `not connected within ${connectMs} ms`), connectMs);
    request.setTimeout(readMs, () => fail('timeout', `no answer within ${readMs} ms`));
    request.once('socket', (upstream) => {
      upstream.once('connect', () => {
        if (origin.scheme !== 'https') return void (clearTimeout(connectTimer), (stage = 'ready'));
        stage = 'handshaking';
        upstream.once('secureConnect', () => void (clearTimeout(connectTimer), (stage = 'ready')));
      });
    });
    const onClientGone = (): void => void request.destroy(new ClientClosedError());
    socket.once('close', onClientGone);
    request.on('error', (error: Error & { code?: string }) => {
      clearTimeout(connectTimer);
      socket.off('close', onClientGone);
      const ours = error instanceof OriginError || error instanceof ClientClosedError;
      reject(ours ? error : new OriginError(failureKindOf(error, stage === 'handshaking'), error.code ?? error.message, origin.id));
    });
    request.once('upgrade', (response: IncomingMessage, upstream: Socket, upstreamHead: Buffer) => {
      clearTimeout(connectTimer);
      socket.off('close', onClientGone);
      upstream.setTimeout(0);
      upstream.setKeepAlive(true, 30000);
      socket.write(headBlock(101, response.statusMessage ?? 'Switching Protocols', response.rawHeaders, true));
      if (upstreamHead.length > 0) socket.write(upstreamHead);
      if (head.length > 0) upstream.write(head);
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
      upstream.once('close', () => socket.destroy());
      socket.once('close', () => upstream.destroy());
      upstream.pipe(socket);
      socket.pipe(upstream);
      resolve({ status: 101 });
    });
    request.once('response', (response: IncomingMessage) => {
      clearTimeout(connectTimer);
      socket.off('close', onClientGone);
      if (!isPassableStatus(response.statusCode ?? 0)) {
        response.destroy();
        return reject(new OriginError('invalid_response', `status ${response.statusCode}`, origin.id));
      }
      socket.write(headBlock(response.statusCode ?? 502, response.statusMessage ?? '', response.rawHeaders, false));
      response.on('error', () => socket.destroy());
      response.pipe(socket);
      resolve({ status: response.statusCode ?? 502 });
    });
    request.end();
  });
}

/**
 * Passes an upgrade request (after the host, IP and WAF phases let it through)
 * to an origin of `target.domain`: origins in the usual try order, the next one
 * after a connect, TLS or timeout failure up to retries.max (nothing of the
 * client's has been sent by then). Every attempt feeds the breakers and health.
 * Resolves with the status the client got: 101, the origin's refusal, the edge's
 * 502/503/504, or 499 when the client left first.
 */
export async function handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, target: UpgradeRequest, deps: UpgradeDeps): Promise<number> {
  socket.on('error', () => socket.destroy());
  const path = (req.url ?? '/').split('?')[0];
  const order = orderOrigins(target.domain, defaultSeed(target.host, path), deps.health, Date.now(), deps.breakers);
  if (order.length === 0) return refuse(socket, new OriginError(target.domain.origins.length === 0 ? 'no_origin' : 'breaker_open'));
  const maxRetries = order[0].retries.max;
  deps.budget?.noteRequest(target.domain.id, Date.now());
  let lastError: OriginError | undefined;
  let attempts = 0;
  let refusedInARow = 0;
  for (let index = 0; attempts <= maxRetries; index++) {
    const origin = order[index % order.length];
    if (!deps.breakers.tryAcquire(origin, Date.now())) {
      if (++refusedInARow >= order.length) break;
      continue;
    }
    refusedInARow = 0;
    const started = Date.now();
    try {
      const { status } = await attemptUpgrade(req, socket, head, target, origin, deps);
      const outcome = responseOutcome(status, Date.now() - started);
      deps.breakers.record(origin, outcome.success, Date.now());
      deps.health.recordPassive(origin.id, outcome, Date.now());
      return status;
    } catch (error) {
      if (error instanceof ClientClosedError) {
        deps.breakers.release(origin);
        return CLIENT_CLOSED;
      }
      if (!(error instanceof OriginError)) throw error;
      deps.breakers.record(origin, false, Date.now());
      deps.health.recordPassive(origin.id, failureOutcome(error, Date.now() - started), Date.now());
      lastError = error;
      attempts++;
      if (socket.destroyed || attempts > maxRetries) break;
      if (error.kind === 'invalid_response' || (error.kind === 'timeout' && !retriesTimeoutElsewhere(order, index, deps.breakers, Date.now()))) break;
      if (deps.budget && !deps.budget.tryRetry(target.domain.id, origin.retries, Date.now())) break;
    }
  }
  return socket.destroyed ? CLIENT_CLOSED : refuse(socket, lastError ?? new OriginError('breaker_open'));
}

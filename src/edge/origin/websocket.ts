// WebSocket pass-through: the handshake goes to an origin chosen like any
// request's; on 101 the two sockets are joined byte for byte and no timeout
// applies any more (a quiet WebSocket is a normal one); any other answer is
// passed back and the connection closed. Every head the client gets (the 101,
// the origin's refusal, the edge's 502/503/504 page) goes through the response
// phases first (header rules, hygiene, X-Request-Id).
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Config } from '../../config/load.js';
import type { SnapshotOrigin } from '../../shared/snapshot.js';
import type { ActiveDomain } from '../config/active-config.js';
import type { OriginBreakers } from './breaker.js';
import { rawResponseHead } from '../pipeline/raw-head.js';
import type { ResponseHeaders } from '../pipeline/response.js';
import { forwardHeaders, responseHeaders } from './forward-headers.js';
import type { OriginHealthView } from './health-view.js';
import { failureOutcome, responseOutcome } from './observation.js';
import { socketHost, tlsName, type OriginTls } from './origin-pools.js';
import { ClientClosedError, OriginError, failureKindOf, isPassableStatus, type OriginErrorKind } from './origin-error.js';
import type { RetryBudget } from './retry-budget.js';
import { defaultSeed, orderOrigins, retriesTimeoutElsewhere } from './selection.js';

/** What the door and the request phases established about the upgrade request, and how its answers are finished. */
export type UpgradeRequest = {
  domain: ActiveDomain;
  /** The normalised host. */
  host: string;
  /** The canonical path and the query, as the origin receives them. */
  target: string;
  clientIp: string;
  scheme: 'http' | 'https';
  /** The request's headers as the door and request-header rules left them (the request context's). */
  headers: IncomingHttpHeaders;
  /** The response phases over an answer's head: returns the headers to send. */
  finishHead(status: number, headers: ResponseHeaders): ResponseHeaders;
  /** Answers the client with the edge's page for `kind` and closes; returns its status. */
  refuse(kind: OriginErrorKind): number;
};

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

/** The status logged for a client that left before it had an answer (as for any request). */
const CLIENT_CLOSED = 499;

type Joined = { status: number };

// One handshake attempt; resolves once the client has the origin's answer.
function attemptUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, target: UpgradeRequest, origin: SnapshotOrigin, deps: UpgradeDeps): Promise<Joined> {
  return new Promise((resolve, reject) => {
    const connectMs = Math.min(origin.timeouts.connect_ms, deps.config.edgeProxyConnectTimeoutSeconds * 1000);
    const readMs = Math.min(origin.timeouts.read_ms, deps.config.edgeProxyReadTimeoutSeconds * 1000);
    // A list node:http sends as it is: a handshake is a GET (isWebSocketHandshake), for which Node adds no body framing.
    const headers = forwardHeaders(target.headers, origin, { domain: target.domain, clientHost: target.host, clientIp: target.clientIp, scheme: target.scheme, upgrade: true, cdnLoop: deps.cdnLoop });
    const options = { agent: false as const, host: socketHost(origin.host), port: origin.port, method: req.method, path: target.target, headers };
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
      const finished = target.finishHead(101, responseHeaders(response.headers));
      socket.write(rawResponseHead(101, { ...finished, connection: 'Upgrade', upgrade: response.headers.upgrade ?? 'websocket' }, response.statusMessage));
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
      const finished = target.finishHead(response.statusCode ?? 502, responseHeaders(response.headers));
      socket.write(rawResponseHead(response.statusCode ?? 502, { ...finished, connection: 'close' }, response.statusMessage));
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
  const path = target.target.split('?')[0];
  const order = orderOrigins(target.domain, defaultSeed(target.host, path), deps.health, Date.now(), deps.breakers);
  if (order.length === 0) return target.refuse(target.domain.origins.length === 0 ? 'no_origin' : 'breaker_open');
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
  return socket.destroyed ? CLIENT_CLOSED : target.refuse(lastError?.kind ?? 'breaker_open');
}

// One request to one origin, up to the moment its response headers arrive.
// Stages tell a TLS failure from a connect failure and say whether a retry is
// still safe: the request body is streamed only once the connection is ready,
// so a failed connect or handshake has consumed nothing of it. A connection
// lost on a reused keep-alive socket before any response byte is marked stale:
// the origin closed it as idle, which says nothing about the origin's health.
import http, { type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import type { SnapshotOrigin } from '../../shared/snapshot.js';
import { socketHost } from './origin-agents.js';
import { ClientClosedError, failureKindOf, OriginError, type StaleConnection } from './origin-error.js';

/** Shared by the attempts of one client request: whether any body byte has left the client stream. */
export type BodyState = { started: boolean };

export type AttemptPlan = {
  origin: SnapshotOrigin;
  agent: http.Agent;
  method: string;
  /** The normalised path and the query as sent (docs/edge.md, "One view of the request"). */
  target: string;
  headers: OutgoingHttpHeaders;
  servername: string | undefined;
  connectTimeoutMs: number;
  readTimeoutMs: number;
  /** The client's body stream, or null when the request has none. */
  body: Readable | null;
  maxBodyBytes: number;
  bodyState: BodyState;
  /** Called with the origin request as soon as it exists, so the caller can abort it. */
  onRequest?: (request: ClientRequest) => void;
};

type Stage = 'queued' | 'connecting' | 'handshaking' | 'ready';

/** What a socket had read and written when this request got it, to tell a stale reused connection. */
type SocketMark = { socket: Socket; bytesRead: number; bytesWritten: number };

function describe(error: Error & { code?: string }): string {
  return error.code ? `${error.code}: ${error.message}` : error.message;
}

// A reused connection that read nothing of the response was closed under the request by the origin.
function staleness(request: ClientRequest, mark: SocketMark | undefined): StaleConnection | undefined {
  if (!request.reusedSocket || !mark || mark.socket.bytesRead > mark.bytesRead) return undefined;
  // Bytes handed to the socket count as sent: the origin may have read them before it closed.
  return mark.socket.bytesWritten > mark.bytesWritten ? 'sent' : 'unsent';
}

/**
 * Copies the client body to the origin with backpressure, counting it against the
 * limit; returns the function that stops it when the attempt fails. Stopping pauses
 * the body: a body left flowing with no listener would drop what arrives until the
 * next attempt reads it, and that attempt would send the rest as if it were the
 * whole. The body may start paused (by an attempt that failed before reading a
 * byte of it) or already ended (it was empty).
 */
function streamBody(plan: AttemptPlan, request: ClientRequest): () => void {
  const body = plan.body!;
  let sent = 0;
  const onData = (chunk: Buffer): void => {
    plan.bodyState.started = true;
    sent += chunk.length;
    if (sent > plan.maxBodyBytes) {
      stop();
      request.destroy(new OriginError('too_large', `request body passed ${plan.maxBodyBytes} bytes`, plan.origin.id));
      return;
    }
    if (!request.write(chunk)) body.pause();
  };
  const onEnd = (): void => void request.end();
  const onDrain = (): void => void body.resume();
  // A client that drops its upload half way leaves the origin waiting for the rest: end it now.
  const onClose = (): void => {
    if (!body.readableEnded) request.destroy(new ClientClosedError());
  };
  const detach = (): void => {
    body.off('data', onData);
    body.off('end', onEnd);
    body.off('close', onClose);
    request.off('drain', onDrain);
  };
  const stop = (): void => {
    detach();
    body.pause();
  };
  if (body.readableEnded) {
    request.end();
    return stop;
  }
  body.on('data', onData);
  body.once('end', onEnd);
  body.once('close', onClose);
  request.on('drain', onDrain);
  // Done with the origin (answered, perhaps before the whole body): what the client still sends is not read for it.
  request.once('close', detach);
  body.resume();
  return stop;
}

/**
 * Sends the request to `plan.origin` and resolves with its response as soon as
 * the headers arrive (the body is left to stream). Rejects with an OriginError:
 * connect (refused, reset or lost before the headers; `stale` when on a reused
 * connection), tls (handshake or certificate), invalid_response (what came back
 * does not parse as HTTP), timeout (connect_ms to be connected, read_ms of silence),
 * overloaded (still waiting for a pooled connection after connect_ms),
 * too_large (the streamed body passed the limit).
 */
export function attemptOrigin(plan: AttemptPlan): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const { origin } = plan;
    // An empty servername for plain http spares the agent deriving one from the Host header for each request (only TLS uses it).
    const options = { agent: plan.agent, host: socketHost(origin.host), port: origin.port, method: plan.method, path: plan.target, headers: plan.headers, servername: origin.scheme === 'https' ? plan.servername : '' };
    const request = (origin.scheme === 'https' ? https : http).request(options);
    plan.onRequest?.(request);
    let stage: Stage = 'queued';
    let mark: SocketMark | undefined;
    let stopBody = (): void => {};
    const fail = (kind: OriginError['kind'], message: string): void => void request.destroy(new OriginError(kind, message, origin.id));
    // A pooled connection handed over at once (the agent marks the request reusedSocket) is ready: no timer to set and clear.
    const connectTimer = request.reusedSocket
      ? undefined
      : setTimeout(() => {
          if (stage === 'queued') fail('overloaded', `no free connection within ${plan.connectTimeoutMs} ms`);
          else fail('timeout', `not connected within ${plan.connectTimeoutMs} ms`);
        }, plan.connectTimeoutMs);
    const ready = (): void => {
      stage = 'ready';
      clearTimeout(connectTimer);
      if (plan.body) stopBody = streamBody(plan, request);
    };
    request.setTimeout(plan.readTimeoutMs, () => fail('timeout', `no data for ${plan.readTimeoutMs} ms`));
    request.once('socket', (socket: Socket) => {
      mark = { socket, bytesRead: socket.bytesRead, bytesWritten: socket.bytesWritten };
      if (!socket.connecting) return ready();
      stage = 'connecting';
      socket.once('connect', () => {
        if (origin.scheme !== 'https') return ready();
        stage = 'handshaking';
        socket.once('secureConnect', ready);
      });
    });
    request.once('response', (response: IncomingMessage) => {
      clearTimeout(connectTimer);
      resolve(response);
    });
    request.on('error', (error: Error) => {
      clearTimeout(connectTimer);
      // Before the caller decides on another attempt: from here on no byte of the body is read for this one.
      stopBody();
      const ours = error instanceof OriginError || error instanceof ClientClosedError;
      reject(ours ? error : new OriginError(failureKindOf(error, stage === 'handshaking'), describe(error), origin.id, staleness(request, mark)));
    });
    if (!plan.body) request.end();
  });
}

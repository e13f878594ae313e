// One request to one origin, up to the moment its response headers arrive,
// through undici's dispatcher (a callback per event, no stream or promise per
// request on the way; docs/edge-origins.md). Stages tell a TLS failure from a
// connect failure and say whether a retry is still safe: the request body is
// streamed only once the connection is ready, so a failed connect or handshake
// has consumed nothing of it. A connection lost on a reused keep-alive
// connection before any response byte is marked stale: the origin closed it as
// idle, which says nothing about the origin's health.
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { Dispatcher, Pool } from 'undici';
import type { SnapshotOrigin } from '../../shared/snapshot.js';
import { ArrivingBody } from './arriving-body.js';
import { failedInHandshake, type Connection, type TrackedDispatch } from './origin-pools.js';
import { ClientClosedError, failureKindOf, OriginError, type StaleConnection } from './origin-error.js';

/** Shared by the attempts of one client request: whether any body byte has left the client stream. */
export type BodyState = { started: boolean };

export type AttemptPlan = {
  origin: SnapshotOrigin;
  pool: Pool;
  /** Sent with `Connection: close` on a connection of its own (the resend after the keep-alive race). */
  fresh: boolean;
  method: string;
  /** The normalised path and the query as sent (docs/edge.md, "One view of the request"). */
  target: string;
  /** Name, value, name, value... (forward-headers.ts). */
  headers: string[];
  servername: string | undefined;
  connectTimeoutMs: number;
  readTimeoutMs: number;
  /** The client's body stream, or null when the request has none. */
  body: Readable | null;
  maxBodyBytes: number;
  bodyState: BodyState;
  /** Called once the origin request is finished with: response read to its end, or failed. */
  onDone: () => void;
};

/** An origin's response as the fetcher takes it: status, headers with lower-case names, and the body arriving. */
export type OriginAnswer = { status: number; statusText: string; headers: Record<string, string | string[] | undefined>; body: ArrivingBody };

/** What a socket had read and written when this request got it, to tell a stale reused connection. */
type SocketMark = { socket: Socket; bytesRead: number; bytesWritten: number; reused: boolean };

function describe(error: Error & { code?: string }): string {
  return error.code ? `${error.code}: ${error.message}` : error.message;
}

// Undici's failures that a timeout caused, and those that say the answer was not HTTP.
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const INVALID_RESPONSE_CODES = new Set(['UND_ERR_HEADERS_OVERFLOW', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'UND_ERR_RES_EXCEEDED_MAX_SIZE']);

/**
 * A client body as the request body of one attempt: read from the client only
 * once undici asks for it (the connection is ready), counted against the limit.
 * Stopping pauses the client body: a body left flowing with no listener would
 * drop what arrives until the next attempt reads it, and that attempt would send
 * the rest as if it were the whole. The client body may start paused (by an
 * attempt that failed before reading a byte of it) or already ended (it was empty).
 */
class AttemptBody extends Readable {
  private attached = false;
  /** Set once the attempt is over: undici may still ask a given-up request's body for data when it reaches a connection. */
  private stopped = false;
  /** Set once the origin answered: no other attempt will want what is left of the client body. */
  answered = false;
  private sent = 0;

  constructor(
    private readonly source: Readable,
    private readonly plan: AttemptPlan,
  ) {
    super();
  }

  override _read(): void {
    if (this.stopped) return;
    if (this.attached) return void this.source.resume();
    this.attached = true;
    if (this.source.readableEnded) return void this.push(null);
    this.source.on('data', this.onData);
    this.source.once('end', this.onEnd);
    this.source.once('close', this.onClose);
    this.source.resume();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.stop();
    callback(error);
  }

  /**
   * Stops reading the client body for this attempt, for good. Before an answer the body is
   * paused for the next attempt; after one (the origin answered before it read the whole body)
   * the rest is read and dropped, as nginx does, so that the client connection can carry its
   * next request.
   */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.attached) {
      this.source.off('data', this.onData);
      this.source.off('end', this.onEnd);
      this.source.off('close', this.onClose);
    }
    if (this.answered && !this.source.readableEnded) this.source.resume();
    else if (this.attached) this.source.pause();
  }

  private readonly onData = (chunk: Buffer): void => {
    this.plan.bodyState.started = true;
    this.sent += chunk.length;
    if (this.sent > this.plan.maxBodyBytes) {
      this.destroy(new OriginError('too_large', `request body passed ${this.plan.maxBodyBytes} bytes`, this.plan.origin.id));
      return;
    }
    if (!this.push(chunk)) this.source.pause();
  };

  private readonly onEnd = (): void => {
    this.stop();
    this.push(null);
  };

  // A client that drops its upload half way leaves the origin waiting for the rest: end the attempt now.
  private readonly onClose = (): void => {
    if (!this.source.readableEnded) this.destroy(new ClientClosedError());
  };
}

/** One attempt in flight: undici's handler for it, settling the promise `attemptOrigin` returns. */
class Attempt implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private abortReason: Error | undefined;
  private timer: NodeJS.Timeout | undefined;
  private mark: SocketMark | undefined;
  private answer: OriginAnswer | undefined;
  private settled = false;
  private done = false;
  readonly options: TrackedDispatch;
  readonly body: AttemptBody | null;

  constructor(
    private readonly plan: AttemptPlan,
    private readonly resolve: (answer: OriginAnswer) => void,
    private readonly reject: (error: Error) => void,
  ) {
    this.body = plan.body ? new AttemptBody(plan.body, plan) : null;
    this.options = {
      path: plan.target,
      method: plan.method,
      headers: plan.headers,
      body: this.body,
      servername: plan.servername,
      reset: plan.fresh,
      headersTimeout: plan.readTimeoutMs,
      bodyTimeout: plan.readTimeoutMs,
    } as TrackedDispatch;
  }

  /** Sends the request; a connection that is not ready at once gets connect_ms to be. */
  start(): void {
    this.plan.pool.dispatch(this.options, this);
    if (this.settled || this.mark) return;
    const connection = this.options.connection;
    // A pooled connection that is open already needs no connect timer.
    if (connection?.socket && !connection.socket.connecting && !connection.socket.destroyed) return;
    this.timer = setTimeout(() => this.timedOut(), this.plan.connectTimeoutMs);
  }

  /** Stops the attempt with `error` (the client left): before the headers only. */
  abort(error: Error): void {
    if (this.settled) return;
    this.fail(error);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    // Given up on while it waited (connect_ms, or the client left): undici drops a request whose start throws and keeps
    // the connection for the next one, where aborting here would close it.
    if (this.abortReason) throw this.abortReason;
    this.controller = controller;
    clearTimeout(this.timer);
    const connection = this.options.connection as Connection;
    const socket = connection.socket!;
    this.mark = { socket, bytesRead: socket.bytesRead, bytesWritten: socket.bytesWritten, reused: connection.requests > 0 };
    connection.requests++;
  }

  onResponseStart(controller: Dispatcher.DispatchController, status: number, headers: Record<string, string | string[] | undefined>, statusText?: string): void {
    // 1xx interim answers (103 Early Hints) are not passed on; the final answer follows.
    if (status >= 100 && status < 200) return;
    clearTimeout(this.timer);
    this.settled = true;
    if (this.body) this.body.answered = true;
    this.answer = { status, statusText: statusText ?? '', headers, body: new ArrivingBody(controller) };
    this.resolve(this.answer);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.answer && !this.answer.body.push(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    this.answer?.body.end();
    this.finish();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    // Failed before it started: when that happened inside a client's dispatch, undici refused to build it (TrackedClient).
    if (!this.controller) this.options.refused = true;
    clearTimeout(this.timer);
    this.body?.stop();
    if (this.answer) this.answer.body.fail(error);
    else if (!this.settled) this.fail(this.classify(error));
    this.finish();
  }

  // A request the pool has not handed to a connection yet waits for one of max_connections to be free.
  private timedOut(): void {
    if (!this.options.connection) this.fail(new OriginError('overloaded', `no free connection within ${this.plan.connectTimeoutMs} ms`, this.plan.origin.id));
    else this.fail(new OriginError('timeout', `not connected within ${this.plan.connectTimeoutMs} ms`, this.plan.origin.id));
  }

  // Settles the attempt as failed now; undici is told to stop it as soon as it holds the request.
  private fail(error: Error): void {
    clearTimeout(this.timer);
    this.settled = true;
    this.abortReason = error;
    // Before the caller decides on another attempt: from here on no byte of the body is read for this one.
    this.body?.stop();
    this.controller?.abort(error);
    this.reject(error);
    if (!this.controller) this.finish();
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.plan.onDone();
  }

  private classify(error: Error & { code?: string }): Error {
    if (error instanceof OriginError || error instanceof ClientClosedError) return error;
    // A request undici will not build (a header from the domain's config it refuses): the edge's failure, never the origin's.
    const id = this.plan.origin.id;
    if (error.code === 'UND_ERR_INVALID_ARG') return new Error(`the request to origin ${id} could not be built: ${error.message}`);
    if (error.code !== undefined && TIMEOUT_CODES.has(error.code)) {
      const message = error.code === 'UND_ERR_CONNECT_TIMEOUT' ? `not connected within ${this.plan.connectTimeoutMs} ms` : `no data for ${this.plan.readTimeoutMs} ms`;
      return new OriginError('timeout', message, id);
    }
    // undici refuses any 100 Continue (it never sends Expect): RFC 9110 §15.2 lets an origin send one unasked, so it is not held against it.
    if (error.message === 'bad response') return new OriginError('invalid_response', 'an unsolicited 100 Continue, which the edge cannot pass on', id, undefined, true);
    if ((error.code !== undefined && INVALID_RESPONSE_CODES.has(error.code)) || error.message === 'bad upgrade') return new OriginError('invalid_response', describe(error), id);
    return new OriginError(failureKindOf(error, failedInHandshake(error)), describe(error), id, this.staleness());
  }

  // A reused connection that read nothing of the response was closed under the request by the origin.
  private staleness(): StaleConnection | undefined {
    const mark = this.mark;
    if (!mark?.reused || mark.socket.bytesRead > mark.bytesRead) return undefined;
    // Bytes handed to the socket count as sent: the origin may have read them before it closed.
    return mark.socket.bytesWritten > mark.bytesWritten ? 'sent' : 'unsent';
  }
}

/** An attempt under way: `answer` settles with the response headers or an OriginError; `abort` stops it before then. */
export type AttemptHandle = { answer: Promise<OriginAnswer>; abort(error: Error): void };

/**
 * Sends the request to `plan.origin`; `answer` resolves as soon as the response
 * headers arrive (the body is left to arrive). Rejects with an OriginError:
 * connect (refused, reset or lost before the headers; `stale` when on a reused
 * connection), tls (handshake or certificate), invalid_response (what came back
 * does not parse as HTTP), timeout (connect_ms to be connected, read_ms of silence),
 * overloaded (still waiting for a pooled connection after connect_ms),
 * too_large (the streamed body passed the limit); or with a plain Error when the
 * HTTP client refused to build the request (the edge's failure, not the origin's).
 */
export function attemptOrigin(plan: AttemptPlan): AttemptHandle {
  let attempt!: Attempt;
  const answer = new Promise<OriginAnswer>((resolve, reject) => (attempt = new Attempt(plan, resolve, reject)));
  attempt.start();
  return { answer, abort: (error) => attempt.abort(error) };
}

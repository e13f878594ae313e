// The origin call of a request: pick the try order, send, retry what is safe
// to retry, and feed every attempt's outcome to the breakers and the health view.
// Behaviour and its reasons: docs/edge-origins.md.
import type { Config } from '../../config/load.js';
import type { SnapshotOrigin } from '../../shared/snapshot.js';
import type { RequestContext } from '../pipeline/context.js';
import type { EdgeResponse } from '../pipeline/response.js';
import { attemptOrigin, type AttemptHandle, type BodyState, type OriginAnswer } from './attempt.js';
import type { OriginBreakers } from './breaker.js';
import { forwardHeaders, hasRequestBody, responseHeaders } from './forward-headers.js';
import type { OriginHealthView } from './health-view.js';
import { failureOutcome, responseOutcome } from './observation.js';
import { OriginPools, tlsName, type OriginTls } from './origin-pools.js';
import { ClientClosedError, isPassableStatus, OriginError } from './origin-error.js';
import { RetryBudget } from './retry-budget.js';
import type { OriginMetrics } from '../metrics/worker-metrics.js';
import { defaultSeed, orderOrigins, retriesTimeoutElsewhere } from './selection.js';

export type OriginFetcherOptions = {
  config: Pick<Config, 'edgeProxyConnectTimeoutSeconds' | 'edgeProxyReadTimeoutSeconds' | 'edgeClientMaxBodyBytes'>;
  health: OriginHealthView;
  breakers: OriginBreakers;
  /** Shared by the fetchers of a worker; one of its own when absent. */
  budget?: RetryBudget;
  /** CA certificates for https origins (tests, private CAs); the system's when absent. */
  tls?: OriginTls;
  /** The selection seed of a request; host and path by default. */
  seed?: (ctx: RequestContext) => string;
  /** This edge's CDN-Loop pseudonym (docs/edge-origins.md); none is sent when absent. */
  cdnLoop?: string;
  /** The worker's origin metrics (latency, errors by kind, retries); nothing is counted when absent. */
  metrics?: OriginMetrics;
};

export type FetchOptions = { detached?: boolean; conditional?: Record<string, string> };

export type OriginFetcher = {
  /**
   * Proxies `ctx.req` to an origin of `ctx.domain`; sets ctx.originId and resolves with the response once its headers are in.
   * A client that leaves first aborts the origin request, unless `detached` (a cache refresh others will use).
   * `conditional`: validators of a stored object (If-None-Match, If-Modified-Since) the cache adds to ask whether it changed.
   */
  fetchOrigin(ctx: RequestContext, options?: FetchOptions): Promise<EdgeResponse>;
  /** Closes the pooled origin connections. */
  close(): void;
};

// RFC 9110 §9.2.2.
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);
// Failures that count against the origin; all but an invalid response may be retried (an answer is not asked for twice).
const BLAMED_KINDS = new Set<OriginError['kind']>(['connect', 'tls', 'timeout', 'invalid_response']);
const RETRYABLE_KINDS = new Set<OriginError['kind']>(['connect', 'tls', 'timeout']);

function noBody(method: string, status: number): boolean {
  return method === 'HEAD' || status === 204 || status === 304;
}

/** True when `error` is the keep-alive race on a reused connection: no verdict on the origin. */
function isStale(error: unknown): error is OriginError {
  return error instanceof OriginError && error.stale !== undefined;
}

/** True when `error` is the origin's fault (it counts against its breaker and health). */
function blamesOrigin(error: unknown): error is OriginError {
  return error instanceof OriginError && BLAMED_KINDS.has(error.kind) && error.stale === undefined && !error.clientLimit;
}

/**
 * True when a request that met the keep-alive race may go again on a fresh
 * connection (RFC 9112 §9.3.1): any method when no byte of it was sent,
 * an idempotent one otherwise; never once a byte of the client's body was read,
 * since it cannot be sent twice (a failed attempt pauses the body unread: attempt.ts).
 */
function mayResend(ctx: RequestContext, error: unknown, bodyState: BodyState): error is OriginError {
  if (!isStale(error) || bodyState.started) return false;
  return error.stale === 'unsent' || IDEMPOTENT_METHODS.has(ctx.method);
}

/**
 * After the last attempt failed, what is left of the client's body (a failed attempt
 * pauses it for the next one) is read and dropped, as nginx discards the body of a
 * request it answers with an error page: the connection can then carry the client's
 * next request. A body over the limit is not read: its 413 closes the connection.
 */
function discardRestOfBody(ctx: RequestContext, error: unknown): void {
  if (error instanceof OriginError && error.kind === 'too_large') return;
  if (!ctx.req.readableEnded) ctx.req.resume();
}

/** Builds the origin fetcher of a worker: keep-alive pools per origin, retries, breakers and passive health. */
export function createOriginFetcher(options: OriginFetcherOptions): OriginFetcher {
  const { config, health, breakers } = options;
  const metrics = options.metrics;
  const budget = options.budget ?? new RetryBudget();
  const pools = new OriginPools(options.tls);
  const seedOf = options.seed ?? ((ctx: RequestContext) => defaultSeed(ctx.host, ctx.path));
  const connectCapMs = config.edgeProxyConnectTimeoutSeconds * 1000;
  const readCapMs = config.edgeProxyReadTimeoutSeconds * 1000;

  // One request to `origin`; sent once more on a fresh connection when a reused one turned out
  // closed by the origin. That second try neither uses a retry nor the retry budget: it is the
  // same request to the same origin, which never saw the first.
  async function attempt(ctx: RequestContext, origin: SnapshotOrigin, bodyState: BodyState, watch: (attempt: AttemptHandle) => void, conditional: Record<string, string> | undefined): Promise<EdgeResponse> {
    try {
      return await send(ctx, origin, bodyState, watch, conditional, false);
    } catch (error) {
      if (!mayResend(ctx, error, bodyState)) {
        if (isStale(error)) breakers.release(origin);
        throw error;
      }
    }
    return send(ctx, origin, bodyState, watch, conditional, true);
  }

  async function send(ctx: RequestContext, origin: SnapshotOrigin, bodyState: BodyState, watch: (attempt: AttemptHandle) => void, conditional: Record<string, string> | undefined, fresh: boolean): Promise<EdgeResponse> {
    const connectTimeoutMs = Math.min(origin.timeouts.connect_ms, connectCapMs);
    const servername = origin.scheme === 'https' ? tlsName(origin, ctx.host) : undefined;
    const pool = fresh ? pools.freshPoolFor(origin, connectTimeoutMs, servername) : pools.poolFor(origin, connectTimeoutMs, servername);
    if (!pools.admit(origin)) {
      breakers.release(origin);
      metrics?.originFailed('overloaded');
      throw new OriginError('overloaded', `more than ${origin.limits.max_pending_requests} requests waiting`, origin.id);
    }
    const started = Date.now();
    let response: OriginAnswer;
    try {
      const attempt = attemptOrigin({
        origin,
        pool,
        fresh,
        method: ctx.method,
        target: ctx.query ? `${ctx.path}?${ctx.query}` : ctx.path,
        headers: forwardHeaders(ctx.headers, origin, { domain: ctx.domain!, clientHost: ctx.host, clientIp: ctx.clientIp, scheme: ctx.scheme, cdnLoop: options.cdnLoop, validators: conditional }),
        servername,
        connectTimeoutMs,
        readTimeoutMs: Math.min(origin.timeouts.read_ms, readCapMs),
        body: hasRequestBody(ctx.headers) ? ctx.req : null,
        maxBodyBytes: config.edgeClientMaxBodyBytes,
        bodyState,
        onDone: () => pools.release(origin),
      });
      watch(attempt);
      response = await attempt.answer;
    } catch (error) {
      const now = Date.now();
      // A stale connection keeps the breaker claim for the request sent again; attempt gives it back otherwise.
      if (blamesOrigin(error)) {
        metrics?.originFailed(error.kind);
        breakers.record(origin, false, now);
        health.recordPassive(origin.id, failureOutcome(error, now - started), now);
      } else {
        // An answer the edge's client cannot take is counted, though not against the origin.
        if (error instanceof OriginError && error.clientLimit) metrics?.originFailed(error.kind);
        if (!isStale(error)) breakers.release(origin);
      }
      throw error;
    }
    const now = Date.now();
    const status = response.status;
    if (!isPassableStatus(status)) return refuseResponse(response, origin, now - started, now);
    metrics?.originResponded((now - started) / 1000);
    const outcome = responseOutcome(status, now - started);
    breakers.record(origin, outcome.success, now);
    health.recordPassive(origin.id, outcome, now);
    ctx.originId = origin.id;
    const headers = responseHeaders(response.headers);
    if (!noBody(ctx.method, status)) return { status, headers, body: response.body.take() };
    response.body.discard();
    return { status, headers, body: null };
  }

  // A response with a status no client can be given: the origin's failure, never retried (as a 5xx is not), and its connection is not reused.
  function refuseResponse(response: OriginAnswer, origin: SnapshotOrigin, latencyMs: number, now: number): never {
    response.body.discard();
    const error = new OriginError('invalid_response', `status ${response.status} ${response.statusText}`.trim(), origin.id);
    metrics?.originFailed('invalid_response');
    breakers.record(origin, false, now);
    health.recordPassive(origin.id, failureOutcome(error, latencyMs), now);
    throw error;
  }

  function mayRetry(ctx: RequestContext, error: unknown, order: SnapshotOrigin[], index: number, bodyState: BodyState, retriesUsed: number, maxRetries: number): boolean {
    if (!blamesOrigin(error) || !RETRYABLE_KINDS.has(error.kind) || bodyState.started || retriesUsed >= maxRetries) return false;
    const origin = order[index % order.length];
    if (!IDEMPOTENT_METHODS.has(ctx.method) && !origin.retries.non_idempotent) return false;
    if (error.kind === 'timeout' && !retriesTimeoutElsewhere(order, index, breakers, Date.now())) return false;
    const allowed = budget.tryRetry(ctx.domain!.id, origin.retries, Date.now());
    metrics?.originRetry(allowed ? 'sent' : 'refused_by_budget');
    return allowed;
  }

  // A refusal before any attempt: counted here, once per request (attempts count their own failures).
  function refuse(kind: 'no_origin' | 'too_large' | 'breaker_open', message: string): Promise<never> {
    metrics?.originFailed(kind);
    return Promise.reject(new OriginError(kind, message));
  }

  function fetchOrigin(ctx: RequestContext, options: FetchOptions = {}): Promise<EdgeResponse> {
    const domain = ctx.domain;
    if (!domain || domain.origins.length === 0) return refuse('no_origin', 'the domain has no routable origin');
    const length = Number(ctx.headers['content-length'] ?? 0);
    if (length > config.edgeClientMaxBodyBytes) return refuse('too_large', `content-length ${length} above ${config.edgeClientMaxBodyBytes}`);
    const order = orderOrigins(domain, seedOf(ctx), health, Date.now(), breakers);
    if (order.length === 0) return refuse('breaker_open', 'every origin\'s circuit breaker is open');
    budget.noteRequest(domain.id, Date.now());
    return fetchFromOrigins(ctx, options, order);
  }

  async function fetchFromOrigins(ctx: RequestContext, options: FetchOptions, order: SnapshotOrigin[]): Promise<EdgeResponse> {
    // A client that leaves while the edge waits for the origin aborts the origin request.
    let current: AttemptHandle | undefined;
    let clientGone = !options.detached && ctx.req.socket.destroyed;
    const onClose = (): void => {
      if (options.detached) return;
      clientGone = true;
      current?.abort(new ClientClosedError());
    };
    ctx.res.once('close', onClose);
    try {
      return await tryInOrder(ctx, order, options.conditional, (attempt) => {
        current = attempt;
        if (clientGone) attempt.abort(new ClientClosedError());
      });
    } catch (error) {
      discardRestOfBody(ctx, error);
      throw error;
    } finally {
      ctx.res.off('close', onClose);
    }
  }

  // Goes down the try order (wrapping round when retries outnumber origins, so one
  // origin is never tried twice in a row while another is left), skipping origins
  // whose breaker refuses; stops at the first response or the first failure that may not be retried.
  async function tryInOrder(ctx: RequestContext, order: SnapshotOrigin[], conditional: Record<string, string> | undefined, watch: (attempt: AttemptHandle) => void): Promise<EdgeResponse> {
    const bodyState: BodyState = { started: false };
    const maxRetries = order[0].retries.max;
    let retriesUsed = 0;
    let refusedInARow = 0;
    // Built only when needed: an Error captures a stack, which costs more than a whole cache hit.
    let lastError: unknown;
    for (let index = 0; ; index++) {
      const origin = order[index % order.length];
      if (!breakers.tryAcquire(origin, Date.now())) {
        if (++refusedInARow < order.length) continue;
        if (lastError !== undefined) throw lastError;
        metrics?.originFailed('breaker_open');
        throw new OriginError('breaker_open', 'every origin\'s circuit breaker is open');
      }
      refusedInARow = 0;
      try {
        return await attempt(ctx, origin, bodyState, watch, conditional);
      } catch (error) {
        if (!mayRetry(ctx, error, order, index, bodyState, retriesUsed, maxRetries)) throw error;
        lastError = error;
        retriesUsed++;
      }
    }
  }

  return { fetchOrigin, close: () => pools.close() };
}

import { Buffer } from 'node:buffer';
import type { Logger } from 'pino';
import { ClientClosedError, OriginError } from '../origin/origin-error.js';
import type { RequestContext } from './context.js';
import { errorPage, failurePage } from './error-page.js';
import type { Phase } from './phase.js';
import { writeResponse } from './writer.js';

/** Called once per request when the client connection is done with it (the log/telemetry phase). */
export type LogPhase = (ctx: RequestContext) => void;

function isPromise(value: boolean | Promise<boolean>): value is Promise<boolean> {
  return typeof value === 'object';
}

/**
 * Runs the edge pipeline (after Pingora and Fastify's hook runner): request
 * phases in order until one handles the request, then every response phase,
 * then the writer. Phases stay synchronous unless one returns a promise, so a
 * cache hit never waits on the microtask queue and allocates no closure. Every
 * error, thrown or rejected, goes to one funnel that classifies it (an origin
 * failure keeps its kind, whichever phase met it); the log phase runs exactly
 * once, when the response is written (a whole buffer), its stream is done with,
 * or the client turned out to have left before it could be written.
 */
export class PipelineRunner {
  /** Runs the log phase for `ctx` unless it already ran (for a request answered outside the writer: an Upgrade). */
  readonly logged: (ctx: RequestContext) => void;

  constructor(
    private readonly requestPhases: readonly Phase[],
    private readonly responsePhases: readonly Phase[],
    log: LogPhase,
    private readonly logger: Logger,
  ) {
    this.logged = (ctx) => {
      if (ctx.logged) return;
      ctx.logged = true;
      try {
        log(ctx);
      } catch (error) {
        logger.error({ err: error, requestId: ctx.requestId }, 'log phase failed');
      }
    };
  }

  /** Writes `ctx.response`, which the caller decided before any request phase (a request refused as malformed), after the response phases. */
  answer(ctx: RequestContext): void {
    this.start(ctx, false);
  }

  run(ctx: RequestContext): void {
    this.start(ctx, true);
  }

  // From the first request phase, or straight to the response phases; every error, thrown or
  // rejected, goes to the error funnel. No closure per request: a cache hit allocates none.
  private start(ctx: RequestContext, withRequestPhases: boolean): void {
    try {
      const pending = withRequestPhases ? this.fromRequestPhase(ctx, 0) : this.fromResponsePhase(ctx, 0);
      if (pending) pending.catch((error: unknown) => this.fail(ctx, error));
    } catch (error) {
      this.fail(ctx, error);
    }
  }

  /**
   * Runs the request phases only, for a request that will not get an HTTP response
   * (an Upgrade): resolves true when one handled it (`ctx.response` then holds the
   * answer to write, after the response phases), false when every check passed.
   */
  async decide(ctx: RequestContext): Promise<boolean> {
    for (const phase of this.requestPhases) {
      if (await phase.run(ctx)) {
        for (const response of this.responsePhases) await response.run(ctx);
        return true;
      }
    }
    return false;
  }

  private fromRequestPhase(ctx: RequestContext, start: number): Promise<void> | undefined {
    for (let index = start; index < this.requestPhases.length; index++) {
      const handled = this.requestPhases[index].run(ctx);
      if (isPromise(handled)) return handled.then((done) => (done ? this.fromResponsePhase(ctx, 0) : this.fromRequestPhase(ctx, index + 1)));
      if (handled) return this.fromResponsePhase(ctx, 0);
    }
    ctx.response ??= errorPage(ctx, 500, 'The edge could not decide how to answer this request.');
    return this.fromResponsePhase(ctx, 0);
  }

  private fromResponsePhase(ctx: RequestContext, start: number): Promise<void> | undefined {
    for (let index = start; index < this.responsePhases.length; index++) {
      const done = this.responsePhases[index].run(ctx);
      if (isPromise(done)) return done.then(() => this.fromResponsePhase(ctx, index + 1));
    }
    writeResponse(ctx, this.logger, this.logged);
    return undefined;
  }

  /**
   * The error funnel. A client that left is no error (499 in the log). Once bytes
   * were sent the connection is cut, so a truncated body is never taken for a
   * whole one. Otherwise the failure becomes its page (failurePage: an origin
   * failure's by its kind, else 500), which goes through the response phases
   * like any answer. Origin failures are the origin's doing, logged at warn
   * without a stack; anything else is the edge's own failure, at error.
   */
  private fail(ctx: RequestContext, error: unknown): void {
    discardBody(ctx);
    if (error instanceof ClientClosedError || ctx.res.destroyed) return this.cut(ctx);
    if (error instanceof OriginError) ctx.originFailed = true;
    this.report(ctx, error);
    if (ctx.res.headersSent) return this.cut(ctx);
    ctx.response = failurePage(ctx, error);
    try {
      const pending = this.fromResponsePhase(ctx, 0);
      if (pending) pending.catch((failure: unknown) => this.writeBarePage(ctx, failure));
    } catch (failure) {
      this.writeBarePage(ctx, failure);
    }
  }

  private report(ctx: RequestContext, error: unknown): void {
    if (error instanceof OriginError) this.logger.warn({ requestId: ctx.requestId, host: ctx.host, kind: error.kind, originId: error.originId, detail: error.message }, 'origin request failed');
    else this.logger.error({ err: error, requestId: ctx.requestId, host: ctx.host }, 'edge pipeline failed');
  }

  // A response phase failed on the error page itself: a bare 500 page goes out without them.
  private writeBarePage(ctx: RequestContext, error: unknown): void {
    this.logger.error({ err: error, requestId: ctx.requestId, host: ctx.host }, 'edge error page failed');
    if (ctx.res.headersSent || ctx.res.destroyed) return this.cut(ctx);
    ctx.response = errorPage(ctx, 500, 'The edge failed while handling this request.');
    try {
      writeResponse(ctx, this.logger, this.logged);
    } catch {
      this.cut(ctx);
    }
  }

  private cut(ctx: RequestContext): void {
    ctx.res.destroy();
    this.logged(ctx);
  }
}

function discardBody(ctx: RequestContext): void {
  const body = ctx.response?.body;
  if (body && !Buffer.isBuffer(body)) body.destroy();
}

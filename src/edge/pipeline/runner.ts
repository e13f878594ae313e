import type { Logger } from 'pino';
import type { RequestContext } from './context.js';
import { errorPage } from './error-page.js';
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
 * cache hit never waits on the microtask queue. Every error, thrown or
 * rejected, becomes one CDN error page; the log phase runs exactly once.
 */
export class PipelineRunner {
  constructor(
    private readonly requestPhases: readonly Phase[],
    private readonly responsePhases: readonly Phase[],
    private readonly log: LogPhase,
    private readonly logger: Logger,
  ) {}

  run(ctx: RequestContext): void {
    let logged = false;
    const logOnce = () => {
      if (logged) return;
      logged = true;
      try {
        this.log(ctx);
      } catch (error) {
        this.logger.error({ err: error, requestId: ctx.requestId }, 'log phase failed');
      }
    };
    ctx.res.once('close', logOnce);
    try {
      const pending = this.fromRequestPhase(ctx, 0);
      if (pending) pending.catch((error: unknown) => this.fail(ctx, error));
    } catch (error) {
      this.fail(ctx, error);
    }
  }

  /**
   * Runs the request phases only, for a request that will not get an HTTP response
   * (an Upgrade): resolves true when one handled it (`ctx.response` then holds the
   * answer to write), false when every check passed.
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
    writeResponse(ctx, this.logger);
    return undefined;
  }

  /** The error funnel: a CDN error page when nothing was sent yet, else the connection is cut. */
  private fail(ctx: RequestContext, error: unknown): void {
    this.logger.error({ err: error, requestId: ctx.requestId, host: ctx.host }, 'edge pipeline failed');
    if (ctx.res.headersSent) {
      ctx.res.destroy();
      return;
    }
    discardBody(ctx);
    ctx.response = errorPage(ctx, 500, 'The edge failed while handling this request.');
    writeResponse(ctx, this.logger);
  }
}

function discardBody(ctx: RequestContext): void {
  const body = ctx.response?.body;
  if (body && !Buffer.isBuffer(body)) body.destroy();
}

import type { RequestContext } from './context.js';

/**
 * One named step of the edge pipeline (after Pingora's phases). `run` answers
 * true when it handled the request, that is it set `ctx.response` (request
 * phases) — the runner then skips the remaining request phases. Response phases
 * run on every response and their answer is ignored. A phase returns a plain
 * boolean when it needs no I/O, so the hot path stays synchronous.
 */
export type Phase = {
  readonly name: string;
  run(ctx: RequestContext): boolean | Promise<boolean>;
};

import type { Phase } from '../pipeline/phase.js';
import type { RequestContext } from '../pipeline/context.js';
import type { OriginFetcher } from './proxy.js';

/**
 * The last request phase: runs when no earlier phase answered (a cache miss
 * included) and always handles the request. It proxies to an origin and sets
 * ctx.response (the origin's, body streaming) and ctx.originId. When the edge
 * gets no response the OriginError (or ClientClosedError) goes to the runner's
 * error funnel, which answers with the page of its kind, as for the cache
 * phase's own origin fetches: one mapping, whichever phase met the failure.
 */
export function originPhase(fetcher: OriginFetcher): Phase {
  return {
    name: 'origin',
    async run(ctx: RequestContext): Promise<boolean> {
      ctx.response = await fetcher.fetchOrigin(ctx);
      return true;
    },
  };
}

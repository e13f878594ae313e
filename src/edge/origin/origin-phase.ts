import type { Phase } from '../pipeline/phase.js';
import { errorPage } from '../pipeline/error-page.js';
import type { RequestContext } from '../pipeline/context.js';
import { ClientClosedError, OriginError, errorPageFor } from './origin-error.js';
import type { OriginFetcher } from './proxy.js';

// Not a status any client sees (it has gone); it tells the logs apart from origin failures, as nginx's 499 does.
const CLIENT_CLOSED_STATUS = 499;

/**
 * The last request phase: runs when no earlier phase answered (a cache miss
 * included) and always handles the request. It proxies to an origin and sets
 * ctx.response (the origin's, body streaming) and ctx.originId; when the edge
 * gets no response it sets a CDN error page instead: 502 connect or TLS
 * failure, 504 timeout, 503 breaker open, no origin or overloaded, 413 body
 * too large (with Connection: close, since the rest of the body is not read).
 * Other errors propagate to the runner.
 */
export function originPhase(fetcher: OriginFetcher): Phase {
  return {
    name: 'origin',
    async run(ctx: RequestContext): Promise<boolean> {
      try {
        ctx.response = await fetcher.fetchOrigin(ctx);
      } catch (error) {
        if (error instanceof ClientClosedError) ctx.response = errorPage(ctx, CLIENT_CLOSED_STATUS, 'The connection was closed.', { connection: 'close' });
        else if (error instanceof OriginError) ctx.response = originErrorPage(ctx, error);
        else throw error;
      }
      return true;
    },
  };
}

function originErrorPage(ctx: RequestContext, error: OriginError) {
  const { status, detail } = errorPageFor(error.kind);
  return errorPage(ctx, status, detail, error.kind === 'too_large' ? { connection: 'close' } : {});
}

// The cache module's response phase ('cache-fill' in the pipeline): runs on every
// response and tells the client how the cache took part. The storing itself
// happens inside the cache phase, which tees the origin body as it streams.
import type { Phase } from '../pipeline/phase.js';

/** Sets `X-Cache` to ctx.cacheStatus on every response of a domain whose caching is enabled (BYPASS for proxied requests, NONE for answers the edge made itself). Never handles. */
export const cacheHeaderPhase: Phase = {
  name: 'cache-fill',
  run(ctx) {
    if (ctx.response && ctx.domain?.cache.caching_enabled) ctx.response.headers['x-cache'] = ctx.cacheStatus;
    return false;
  },
};

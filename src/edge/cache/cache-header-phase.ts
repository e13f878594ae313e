// The cache module's response phase ('cache-fill' in the pipeline): runs on every
// response and tells the client how the cache took part. The storing itself
// happens inside the cache phase, which tees the origin body as it streams.
import type { Phase } from '../pipeline/phase.js';
import { CDN_CACHE_CONTROL } from './targeted-cache-control.js';

/**
 * Sets `X-Cache` to ctx.cacheStatus on every response of a domain whose caching is enabled (BYPASS for
 * proxied requests, NONE for answers the edge made itself), and removes the targeted cache-control fields
 * the edge is a target of (RFC 9213: they are for the edge; browsers read Cache-Control). Never handles.
 */
export const cacheHeaderPhase: Phase = {
  name: 'cache-fill',
  run(ctx) {
    const response = ctx.response;
    const cache = ctx.domain?.cache;
    if (!response || !cache) return false;
    const headers = response.headers;
    if (cache.caching_enabled) headers['x-cache'] = ctx.cacheStatus;
    if (headers[CDN_CACHE_CONTROL] !== undefined) delete headers[CDN_CACHE_CONTROL];
    const own = cache.targeted_cache_control_header;
    if (own && headers[own] !== undefined) delete headers[own];
    return false;
  },
};

import { domainForHost } from '../config/active-config.js';
import { errorPage } from './error-page.js';
import type { Phase } from './phase.js';

/**
 * host: finds the domain serving the request's Host (exact hostname, then the
 * nearest wildcard). Handled when no domain serves it: the CDN 404 page.
 */
export const hostPhase: Phase = {
  name: 'host',
  run(ctx) {
    ctx.domain = ctx.host ? domainForHost(ctx.config, ctx.host) : undefined;
    if (ctx.domain) return false;
    ctx.response = errorPage(ctx, 404, 'This site is not served by this CDN edge. Check the address, or the site\'s DNS settings.');
    return true;
  },
};

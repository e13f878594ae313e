import { isAcmeChallengePath } from '../acme/acme-challenge-phase.js';
import type { Phase } from '../pipeline/phase.js';
import { httpsLocation } from '../rules/page-rules-phase.js';
import { redirectResponse } from '../rules/redirect-response.js';

/**
 * always-https (request phase, right after host): a plain-HTTP request for a domain whose SSL
 * setting `always_https` is on (and its SSL mode not `off`) is answered 301 to the same URL over https (default port),
 * except ACME challenge paths (HTTP-01 validations arrive over plain HTTP; the worker answers them
 * in a runner of their own before this one, and this check keeps them plain if that ever changes).
 * Handled: the redirect.
 */
export const alwaysHttpsPhase: Phase = {
  name: 'always-https',
  run(ctx) {
    if (ctx.scheme !== 'http') return false;
    const ssl = ctx.domain?.snapshot.ssl;
    if (ssl?.always_https !== true || ssl.mode === 'off' || isAcmeChallengePath(ctx.path)) return false;
    ctx.response = redirectResponse(301, httpsLocation(ctx));
    return true;
  },
};

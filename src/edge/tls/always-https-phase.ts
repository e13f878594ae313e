import type { Phase } from '../pipeline/phase.js';
import { httpsLocation } from '../rules/page-rules-phase.js';
import { redirectResponse } from '../rules/redirect-response.js';

/**
 * always-https (request phase, right after host): a plain-HTTP request for a domain whose SSL
 * setting `always_https` is on (and its SSL mode not `off`) is answered 301 to the same URL over https (default port).
 * Handled: the redirect. ACME challenge paths never reach it: the worker answers them in a runner
 * of their own (pipeline-assembly.ts), so HTTP-01 validations stay plain.
 */
export const alwaysHttpsPhase: Phase = {
  name: 'always-https',
  run(ctx) {
    if (ctx.scheme !== 'http') return false;
    const ssl = ctx.domain?.snapshot.ssl;
    if (ssl?.always_https !== true || ssl.mode === 'off') return false;
    ctx.response = redirectResponse(301, httpsLocation(ctx));
    return true;
  },
};

import type { Phase } from '../pipeline/phase.js';

/**
 * hsts (response phase, before header rules, which may still change it): an HTTPS answer of a
 * domain with `hsts_enabled` carries Strict-Transport-Security with the domain's `hsts_max_age`.
 * Never on plain HTTP (RFC 6797 §7.2). Never handles.
 */
export const hstsPhase: Phase = {
  name: 'hsts',
  run(ctx) {
    if (ctx.scheme !== 'https') return false;
    const ssl = ctx.domain?.snapshot.ssl;
    if (ssl?.hsts_enabled === true && typeof ssl.hsts_max_age === 'number') ctx.response!.headers['strict-transport-security'] = `max-age=${ssl.hsts_max_age}`;
    return false;
  },
};

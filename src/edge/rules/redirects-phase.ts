import { redirectLocation, type RedirectAction } from '../../shared/rules/redirects.js';
import { firstMatch } from '../../shared/rules/rule-set.js';
import type { Phase } from '../pipeline/phase.js';
import { redirectResponse } from './redirect-response.js';

/**
 * The redirects phase (after page rules): the first matching redirect rule
 * answers its Location (captures substituted, path and query appended as the
 * rule says) with its status code. Handled: a redirect.
 */
export const redirectsPhase: Phase = {
  name: 'redirects',
  run(ctx) {
    if (!ctx.domain || !ctx.facts) return false;
    const hit = firstMatch(ctx.domain.rules.redirects, ctx.facts);
    if (!hit) return false;
    const action = hit.rule as unknown as RedirectAction;
    const status = action.status_code ?? 301;
    ctx.response = redirectResponse(status, redirectLocation({ target: action.target, status_code: status, preserve_query: action.preserve_query ?? true, preserve_path: action.preserve_path ?? false }, hit.captures, ctx.facts.facts));
    return true;
  },
};

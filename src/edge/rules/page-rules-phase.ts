import { encodeForLocation } from '../../shared/control-characters.js';
import { redirectLocation } from '../../shared/rules/redirects.js';
import { firstMatch } from '../../shared/rules/rule-set.js';
import type { PageSettings, RequestContext } from '../pipeline/context.js';
import type { Phase } from '../pipeline/phase.js';
import { redirectResponse } from './redirect-response.js';

type Forwarding = { url: string; status_code?: number };
type PageRuleSettings = PageSettings & { forwarding_url?: Forwarding };

/** The same URL over https on the default port. */
export function httpsLocation(ctx: RequestContext): string {
  return `https://${ctx.host}${encodeForLocation(ctx.path)}${ctx.query ? `?${encodeForLocation(ctx.query)}` : ''}`;
}

/**
 * The page-rules phase (after country, before redirects): the first matching
 * page rule decides. A forwarding URL answers its redirect ($1..$9 from the URL
 * pattern's wildcards); `always_use_https` on a plain-HTTP request answers 301 to
 * the same URL over https (default port). Otherwise the rule's settings become
 * `ctx.page` for the later phases and the request continues. Handled: a redirect.
 */
export const pageRulesPhase: Phase = {
  name: 'page-rules',
  run(ctx) {
    if (!ctx.domain || !ctx.facts) return false;
    const hit = firstMatch(ctx.domain.rules['page-rules'], ctx.facts);
    if (!hit) return false;
    const settings = hit.rule.settings as PageRuleSettings | undefined;
    if (!settings) return false;
    const forwarding = settings.forwarding_url;
    if (forwarding) {
      const status = forwarding.status_code ?? 301;
      ctx.response = redirectResponse(status, redirectLocation({ target: forwarding.url, status_code: status, preserve_query: false, preserve_path: false }, hit.captures, ctx.facts.facts));
      return true;
    }
    if (settings.always_use_https === true && ctx.scheme === 'http') {
      ctx.response = redirectResponse(301, httpsLocation(ctx));
      return true;
    }
    ctx.page = settings;
    return false;
  },
};

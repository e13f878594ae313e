import type { RequestContext } from '../pipeline/context.js';
import { errorPage } from '../pipeline/error-page.js';

/** Answers the CDN block page with the edge's block status (settings `security.block_status_code`, 403 by default). */
export function blockRequest(ctx: RequestContext, detail: string): true {
  ctx.response = errorPage(ctx, ctx.config.edge.blockStatusCode, detail);
  return true;
}

/** The challenge level of a rule: its own `challenge_difficulty`, else the edge default, kept within 1..6. */
export function challengeLevel(ctx: RequestContext, ruleLevel: unknown): number {
  const level = typeof ruleLevel === 'number' ? ruleLevel : ctx.config.edge.challengeDifficulty;
  return Math.min(6, Math.max(1, Math.trunc(level) || 1));
}

import { firstMatch } from '../../shared/rules/rule-set.js';
import type { Phase } from '../pipeline/phase.js';
import { blockRequest, challengeLevel } from './block-response.js';
import { markAllowed, requestChallenge } from './security-state.js';

/**
 * The ip-rules phase (after redirects, before WAF): the first matching IP rule
 * decides. block answers the block page; allow lets the request skip WAF, rate
 * limits and challenges (not reported: it would be one event per trusted request);
 * challenge asks the challenge phase for the edge's default level. Handled: a block.
 */
export const ipRulesPhase: Phase = {
  name: 'ip-rules',
  run(ctx) {
    if (!ctx.domain || !ctx.facts) return false;
    const hit = firstMatch(ctx.domain.rules['ip-rules'], ctx.facts);
    if (!hit) return false;
    const ruleId = hit.rule.id;
    const action = (hit.rule.action as string | undefined) ?? 'block';
    if (action === 'allow') {
      markAllowed(ctx);
      return false;
    }
    if (action === 'challenge') {
      requestChallenge(ctx, { level: challengeLevel(ctx, undefined), kind: 'ip_rule', ruleId });
      return false;
    }
    ctx.findings.push({ kind: 'ip_rule', action: 'block', rule_id: ruleId });
    return blockRequest(ctx, 'Access to this site from your network has been blocked by its operator.');
  },
};

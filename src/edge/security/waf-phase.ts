import { allMatches } from '../../shared/rules/rule-set.js';
import type { SnapshotRule } from '../../shared/snapshot.js';
import type { RequestContext } from '../pipeline/context.js';
import type { Phase } from '../pipeline/phase.js';
import { blockRequest, challengeLevel } from './block-response.js';
import { isSignatureSet, SIGNATURE_SETS, type SignatureSet } from './managed-signatures.js';
import { RequestInspection, type SignatureHit } from './request-inspection.js';
import { isAllowed, requestChallenge } from './security-state.js';

type WafAction = 'block' | 'challenge' | 'allow' | 'log';

function signaturesOf(rule: SnapshotRule): SignatureSet[] {
  return Array.isArray(rule.signatures) ? rule.signatures.filter(isSignatureSet) : [];
}

function act(ctx: RequestContext, action: WafAction, ruleId: string | null, ruleLevel: unknown, hit: SignatureHit | undefined): boolean {
  if (action === 'allow') return false;
  const details = hit ? { signature: hit.set, part: hit.part } : undefined;
  if (action === 'challenge') {
    requestChallenge(ctx, { level: challengeLevel(ctx, ruleLevel), kind: 'waf', ruleId });
    return false;
  }
  ctx.findings.push({ kind: 'waf', action, rule_id: ruleId, ...(details ? { details } : {}) });
  return action === 'block' && blockRequest(ctx, 'This request was blocked by the security rules of this site.');
}

/**
 * The waf phase (after IP rules; skipped when a page rule disables `waf` or an IP
 * rule allowed the request): the first WAF rule that fires decides. A rule naming
 * `signatures` fires only when the request also trips one of those managed sets.
 * block answers the block page; challenge asks the challenge phase for the rule's
 * level; allow ends the WAF phase (rate limits still apply); log records a finding
 * and lets the following rules decide. With `managedWafDefault` on and no WAF rules on the domain, every
 * managed set applies with action block. Handled: a block.
 */
export const wafPhase: Phase = {
  name: 'waf',
  run(ctx) {
    if (!ctx.domain || !ctx.facts || ctx.disabled('waf') || isAllowed(ctx)) return false;
    const rules = ctx.domain.rules['waf-rules'];
    if (rules.entries.length === 0) {
      if (!ctx.config.edge.managedWafDefault) return false;
      const hit = new RequestInspection(ctx).firstHit(SIGNATURE_SETS);
      return hit ? act(ctx, 'block', null, undefined, hit) : false;
    }
    let inspection: RequestInspection | undefined;
    for (const { rule } of allMatches(rules, ctx.facts)) {
      const sets = signaturesOf(rule);
      let hit: SignatureHit | undefined;
      if (sets.length > 0) {
        hit = (inspection ??= new RequestInspection(ctx)).firstHit(sets);
        if (!hit) continue;
      }
      const action = (rule.action as WafAction | undefined) ?? 'block';
      // A log rule only records: the rules after it still decide.
      if (action === 'log') act(ctx, action, rule.id, undefined, hit);
      else return act(ctx, action, rule.id, rule.challenge_difficulty, hit);
    }
    return false;
  },
};

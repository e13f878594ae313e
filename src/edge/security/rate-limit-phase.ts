import { createHash } from 'node:crypto';
import { firstMatch } from '../../shared/rules/rule-set.js';
import type { SnapshotRule } from '../../shared/snapshot.js';
import type { RequestContext } from '../pipeline/context.js';
import { errorPage } from '../pipeline/error-page.js';
import type { Phase } from '../pipeline/phase.js';
import { challengeLevel } from './block-response.js';
import { isAllowed, requestChallenge } from './security-state.js';
import { DEFAULT_MAX_KEYS, SlidingWindowLimiter } from './sliding-window.js';

type RateLimitRule = SnapshotRule & {
  requests: number;
  period_seconds: number;
  key?: 'ip' | 'ip_path' | 'header';
  key_header?: string | null;
  action?: 'block' | 'challenge' | 'log';
  block_seconds?: number;
  challenge_difficulty?: number | null;
};

// Keys longer than this (a long path or header value) are kept as their hash, so a key costs little memory.
const MAX_KEY_LENGTH = 200;

function counterKey(ctx: RequestContext, rule: RateLimitRule): string {
  let key = ctx.clientIp;
  if (rule.key === 'ip_path') key = `${ctx.clientIp} ${ctx.path}`;
  else if (rule.key === 'header' && rule.key_header) {
    const value = ctx.facts?.facts.headers[rule.key_header.toLowerCase()];
    if (value !== undefined) key = `h:${value}`;
  }
  if (key.length > MAX_KEY_LENGTH) key = createHash('sha256').update(key).digest('base64');
  return `${rule.id} ${key}`;
}

/** Options of the rate-limit phase: the most counters it keeps, and a clock for tests. */
export type RateLimitOptions = { maxKeys?: number; now?: () => number };

/**
 * The rate-limit phase (after WAF; skipped when a page rule disables `rate_limit`
 * or an IP rule allowed the request). The first matching rate-limit rule counts the
 * request under its key (the client IP, IP and path, or a header's value — the IP
 * when the header is absent) in a sliding window. Over the limit: block answers 429
 * with Retry-After and keeps the key blocked for `block_seconds`; challenge asks the
 * challenge phase for the rule's level; log records a finding. Counters live in this
 * worker only. Handled: a block.
 */
export function rateLimitPhase(options: RateLimitOptions = {}): Phase {
  const limiter = new SlidingWindowLimiter(options.maxKeys ?? DEFAULT_MAX_KEYS, options.now);
  return {
    name: 'rate-limit',
    run(ctx) {
      if (!ctx.domain || !ctx.facts || ctx.disabled('rate_limit') || isAllowed(ctx)) return false;
      const rules = ctx.domain.rules['rate-limits'];
      if (rules.entries.length === 0) return false;
      const hit = firstMatch(rules, ctx.facts);
      if (!hit) return false;
      const rule = hit.rule as RateLimitRule;
      const action = rule.action ?? 'block';
      const verdict = limiter.hit(counterKey(ctx, rule), rule.requests, rule.period_seconds, action === 'block' ? (rule.block_seconds ?? 60) : undefined);
      if (!verdict.over) return false;
      if (action === 'challenge') {
        requestChallenge(ctx, { level: challengeLevel(ctx, rule.challenge_difficulty), kind: 'rate_limit', ruleId: rule.id });
        return false;
      }
      ctx.findings.push({ kind: 'rate_limit', action, rule_id: rule.id, details: { requests: rule.requests, period_seconds: rule.period_seconds, key: rule.key ?? 'ip' } });
      if (action === 'log') return false;
      ctx.response = errorPage(ctx, 429, 'Too many requests from your address; wait a moment and try again.', { 'retry-after': String(verdict.retryAfterSeconds) });
      return true;
    },
  };
}

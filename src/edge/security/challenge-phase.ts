import type { RequestContext } from '../pipeline/context.js';
import { errorPage } from '../pipeline/error-page.js';
import type { Phase } from '../pipeline/phase.js';
import { challengeLevel } from './block-response.js';
import { CHALLENGE_PATH, challengePage } from './challenge-page.js';
import { readSubmission, sameHostPath } from './challenge-submission.js';
import { checkChallengeToken, clearanceSatisfies, issueChallengeToken, issueClearance, solvesChallenge, type Binding } from './challenge-token.js';
import { isAllowed, requestedChallenge } from './security-state.js';

/** The cookie a passed challenge sets. */
export const CLEARANCE_COOKIE = '__cdn_clearance';

/** The challenge phase's settings: CDN_EDGE_CLEARANCE_SECRET, CDN_EDGE_CLEARANCE_TTL_SECONDS and a clock for tests. */
export type ChallengeOptions = { secret: string; ttlSeconds: number; now?: () => number };

function clearanceCookie(ctx: RequestContext): string | undefined {
  const parsed = ctx.facts?.facts.cookies[CLEARANCE_COOKIE];
  if (parsed !== undefined) return parsed;
  const header = ctx.headers.cookie;
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const equals = pair.indexOf('=');
    if (equals !== -1 && pair.slice(0, equals).trim() === CLEARANCE_COOKIE) return pair.slice(equals + 1).trim();
  }
  return undefined;
}

function underAttack(ctx: RequestContext): boolean {
  return (ctx.page?.security_level ?? ctx.config.edge.securityLevel) === 'under_attack';
}

// The level this request must have passed: what an earlier phase asked, raised to the
// edge's default level in under-attack mode; 0 when nothing asks for a challenge.
function neededLevel(ctx: RequestContext): number {
  const asked = requestedChallenge(ctx)?.level ?? 0;
  return underAttack(ctx) ? Math.max(asked, challengeLevel(ctx, undefined)) : asked;
}

function returnPath(ctx: RequestContext): string {
  return sameHostPath(ctx.query ? `${ctx.path}?${ctx.query}` : ctx.path) ?? '/';
}

function challenge(ctx: RequestContext, options: ChallengeOptions, binding: Binding, level: number): true {
  const asked = requestedChallenge(ctx);
  ctx.findings.push({ kind: asked?.kind ?? 'challenge', action: 'challenge', rule_id: asked?.ruleId ?? null, details: { level, ...(asked ? {} : { reason: 'under_attack' }) } });
  const token = issueChallengeToken(options.secret, binding, level, (options.now ?? Date.now)());
  ctx.response = challengePage({ token, level, returnTo: returnPath(ctx), requestId: ctx.requestId });
  return true;
}

function refuse(ctx: RequestContext, reason: string): true {
  ctx.findings.push({ kind: 'challenge', action: 'block', rule_id: null, details: { reason } });
  ctx.response = errorPage(ctx, 403, 'The browser check did not pass. Go back and reload the page to try again.');
  return true;
}

function seeOther(location: string, cookie?: string): RequestContext['response'] {
  return { status: 303, headers: { location, 'cache-control': 'no-store', 'content-length': '0', ...(cookie ? { 'set-cookie': cookie } : {}) }, body: null };
}

async function verifySubmission(ctx: RequestContext, options: ChallengeOptions): Promise<true> {
  if (ctx.method !== 'POST') {
    ctx.response = errorPage(ctx, 405, 'This address only takes browser check answers.', { allow: 'POST' });
    return true;
  }
  if (!ctx.domain) {
    ctx.response = errorPage(ctx, 404, 'This site is not served here.');
    return true;
  }
  const body = await readSubmission(ctx.req);
  if ('status' in body) {
    ctx.response = errorPage(ctx, body.status, body.detail);
    return true;
  }
  const returnTo = sameHostPath(body.fields.get('return'));
  if (!returnTo) return refuse(ctx, 'bad return path');
  const now = (options.now ?? Date.now)();
  const binding = { domainId: ctx.domain.id, clientIp: ctx.clientIp };
  const token = body.fields.get('token') ?? '';
  const checked = checkChallengeToken(options.secret, binding, token, now);
  if ('problem' in checked) {
    // A page left open too long: back to the original URL, which challenges afresh.
    if (checked.problem !== 'expired') return refuse(ctx, checked.problem);
    ctx.response = seeOther(returnTo);
    return true;
  }
  if (!solvesChallenge(token, checked.level, body.fields.get('nonce') ?? '')) return refuse(ctx, 'wrong solution');
  ctx.findings.push({ kind: 'challenge', action: 'pass', rule_id: null, details: { level: checked.level } });
  const clearance = issueClearance(options.secret, binding, checked.level, options.ttlSeconds, now);
  const cookie = `${CLEARANCE_COOKIE}=${clearance}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${options.ttlSeconds}${ctx.scheme === 'https' ? '; Secure' : ''}`;
  ctx.response = seeOther(returnTo, cookie);
  return true;
}

/**
 * The challenge phase (after rate limits, before cache; also run right after the
 * host and country phases for CHALLENGE_PATH on any host). On CHALLENGE_PATH it
 * verifies a posted solution: 303 back to the original path with the clearance
 * cookie, or 403. Elsewhere, when an earlier phase asked for a challenge or the
 * security level is `under_attack`, a request without a clearance of that level
 * gets the challenge page (403). Requests an IP rule allowed are never challenged.
 * Handled: a challenge page or a submission's answer.
 */
export function challengePhase(options: ChallengeOptions): Phase {
  if (!options.secret) throw new Error('the challenge phase needs a clearance secret (CDN_EDGE_CLEARANCE_SECRET)');
  const now = options.now ?? Date.now;
  return {
    name: 'challenge',
    run(ctx) {
      if (ctx.path === CHALLENGE_PATH) return verifySubmission(ctx, options);
      if (!ctx.domain || isAllowed(ctx)) return false;
      const level = neededLevel(ctx);
      if (level === 0) return false;
      const binding = { domainId: ctx.domain.id, clientIp: ctx.clientIp };
      if (clearanceSatisfies(options.secret, binding, clearanceCookie(ctx), level, now())) return false;
      return challenge(ctx, options, binding, level);
    },
  };
}

import type { RequestContext, SecurityFinding } from '../pipeline/context.js';

// What the IP-rule, WAF and rate-limit phases tell the challenge phase. RequestContext
// is a shared contract, so the note lives here, keyed weakly by the context: it goes
// with the request, and most requests never get one (no allocation on the hot path).

/** A challenge an earlier phase asked for: the level to pass and who asked. */
export type ChallengeRequest = { level: number; kind: SecurityFinding['kind']; ruleId: string | null };

type SecurityState = { allowed: boolean; challenge: ChallengeRequest | undefined };

const states = new WeakMap<RequestContext, SecurityState>();

function stateOf(ctx: RequestContext): SecurityState {
  let state = states.get(ctx);
  if (!state) {
    state = { allowed: false, challenge: undefined };
    states.set(ctx, state);
  }
  return state;
}

/** Marks the request as allowed by an IP rule: WAF, rate limits and challenges leave it alone. */
export function markAllowed(ctx: RequestContext): void {
  stateOf(ctx).allowed = true;
}

/** True when an IP rule allowed the request. */
export function isAllowed(ctx: RequestContext): boolean {
  return states.get(ctx)?.allowed === true;
}

/** Asks the challenge phase to challenge the request; of several asks, the highest level wins. */
export function requestChallenge(ctx: RequestContext, request: ChallengeRequest): void {
  const state = stateOf(ctx);
  if (!state.challenge || request.level > state.challenge.level) state.challenge = request;
}

/** The challenge asked for this request, if any. */
export function requestedChallenge(ctx: RequestContext): ChallengeRequest | undefined {
  return states.get(ctx)?.challenge;
}

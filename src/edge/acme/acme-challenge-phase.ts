// HTTP-01 answers (docs/ssl.md, "HTTP-01"): `/.well-known/acme-challenge/<token>` is answered by
// the edge itself, before any rule, rate limit or challenge page, with the key authorization the
// core holds for the token and host. The edge asks the core (a signed request) on a miss and keeps
// an answer for a minute, so the token is served from the moment the core stored it.
import type { RequestContext } from '../pipeline/context.js';
import type { Phase } from '../pipeline/phase.js';
import type { EdgeResponse } from '../pipeline/response.js';

export const ACME_CHALLENGE_PREFIX = '/.well-known/acme-challenge/';
const TOKEN = /^[A-Za-z0-9_-]{1,128}$/;
const KEEP_MS = 60_000;
const MAX_KEPT = 1000;

/** Asks the core for the key authorization of `token` on `host`: undefined when it has none. */
export type ChallengeLookup = (token: string, host: string) => Promise<string | undefined>;

/** Whether a request is an ACME HTTP-01 validation the edge answers itself. */
export function isAcmeChallengePath(path: string): boolean {
  return path.startsWith(ACME_CHALLENGE_PREFIX);
}

function textAnswer(status: number, text: string): EdgeResponse {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }, body: Buffer.from(text) };
}

/** The phase that answers HTTP-01 validations (always handles the request: 200 with the key authorization, else 404). */
export function acmeChallengePhase(lookup: ChallengeLookup, now: () => number = Date.now): Phase {
  const kept = new Map<string, { value: string; until: number }>();
  const inFlight = new Map<string, Promise<string | undefined>>();
  const find = async (token: string, host: string): Promise<string | undefined> => {
    const key = `${host} ${token}`;
    const hit = kept.get(key);
    if (hit && hit.until > now()) return hit.value;
    let asked = inFlight.get(key);
    if (!asked) {
      asked = lookup(token, host).finally(() => inFlight.delete(key));
      inFlight.set(key, asked);
    }
    const value = await asked;
    if (value !== undefined) {
      if (kept.size >= MAX_KEPT) kept.clear();
      kept.set(key, { value, until: now() + KEEP_MS });
    }
    return value;
  };
  return {
    name: 'acme-challenge',
    async run(ctx: RequestContext) {
      const token = ctx.path.slice(ACME_CHALLENGE_PREFIX.length);
      const value = TOKEN.test(token) && ctx.host ? await find(token, ctx.host).catch(() => undefined) : undefined;
      ctx.response = value === undefined ? textAnswer(404, 'no such ACME challenge\n') : textAnswer(200, value);
      return true;
    },
  };
}

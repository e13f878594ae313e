// What went wrong talking to the CA, kept as the CA said it (RFC 8555 problem documents), and what
// the scheduler does about it: retry later (how much later), or give up.

const RATE_LIMITED = 'urn:ietf:params:acme:error:rateLimited';
const ACCOUNT_DOES_NOT_EXIST = 'urn:ietf:params:acme:error:accountDoesNotExist';
// The CA looked and refused: retrying the same order at once would only fail again.
const VALIDATION_PROBLEMS = new Set(['unauthorized', 'connection', 'dns', 'incorrectResponse', 'caa', 'rejectedIdentifier', 'tls', 'malformed', 'unsupportedIdentifier', 'badCSR']);

/** An RFC 8555 problem the CA answered (type, detail) with its Retry-After, when it gave one. */
export class AcmeProblem extends Error {
  constructor(
    readonly type: string,
    readonly detail: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(`${detail} (${type})`);
  }
}

/** A challenge the CA could not validate: the order cannot succeed as it stands. */
export class ChallengeFailed extends Error {}

/** The seconds a Retry-After header asks for: a number of seconds or an HTTP date (undefined when absent or unreadable). */
export function retryAfterSeconds(header: string | undefined, now: Date): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

export type RetryDecision = { retry: true; delaySeconds: number } | { retry: false };

const BASE_DELAY_SECONDS = 60;
const MAX_DELAY_SECONDS = 3600;
/** Attempts (the first run included) before a job that keeps failing is given up. */
export const MAX_ATTEMPTS = 5;

/**
 * After a failed attempt (`attempts` counts it): a rate limit waits what the CA's Retry-After asks
 * (and does not count against the attempts), a validation the CA refused fails the job, anything
 * else (the CA or the network unreachable, a 5xx) is retried after 1, 2, 4… minutes, at most an hour.
 */
export function retryDecision(error: unknown, attempts: number): RetryDecision {
  if (error instanceof AcmeProblem && error.type === RATE_LIMITED) {
    return { retry: true, delaySeconds: error.retryAfterSeconds ?? Math.min(MAX_DELAY_SECONDS, BASE_DELAY_SECONDS * 2 ** Math.max(0, attempts - 1)) };
  }
  if (error instanceof ChallengeFailed) return { retry: false };
  if (error instanceof AcmeProblem && VALIDATION_PROBLEMS.has(error.type.replace('urn:ietf:params:acme:error:', ''))) return { retry: false };
  if (attempts >= MAX_ATTEMPTS) return { retry: false };
  return { retry: true, delaySeconds: Math.min(MAX_DELAY_SECONDS, BASE_DELAY_SECONDS * 2 ** Math.max(0, attempts - 1)) };
}

/** Whether the CA no longer knows the account it was sent (a test CA restarted, a staging CA reset): it must be registered again. */
export function isAccountGone(error: unknown): boolean {
  return error instanceof AcmeProblem && error.type === ACCOUNT_DOES_NOT_EXIST;
}

/** Whether the failure was a rate limit (its attempt is given back: the CA asked to wait, nothing failed). */
export function isRateLimit(error: unknown): boolean {
  return error instanceof AcmeProblem && error.type === RATE_LIMITED;
}

/** One line for `last_error` and logs: the CA's words, bounded. */
export function errorLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return flat.length > 500 ? `${flat.slice(0, 499)}…` : flat;
}

// What one `cdn doctor` check found (docs/doctor.md): a status, what it saw, and what to do about it.
import type { Config } from '../config/load.js';

/** ok: as it should be; warn: works, but look at it; fail: wrong, doctor exits 1; skip: not checked (not configured, or an earlier check failed). */
export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export type CheckResult = { check: string; status: CheckStatus; message: string; fix: string | null };

/** One line of a check; `fix` says what to do (none when all is well). */
export function checkLine(check: string, status: CheckStatus, message: string, fix?: string): CheckResult {
  return { check, status, message, fix: fix ?? null };
}

/** How a production-unsafe setting counts: wrong with CDN_ENV=production, worth a look in development. */
export function unsafeStatus(config: Pick<Config, 'env'>): CheckStatus {
  return config.env === 'production' ? 'fail' : 'warn';
}

/** At most `limit` names, then how many more: `a, b, c and 4 more`. */
export function someOf(names: readonly string[], limit = 3): string {
  if (names.length <= limit) return names.join(', ');
  return `${names.slice(0, limit).join(', ')} and ${names.length - limit} more`;
}

/** `1 edge`, `3 edges`. */
export function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

import { ValidationError } from './errors.js';
import { MAX_UNIX_SECONDS } from './timestamps.js';

/** An optional id query parameter (such as `domain_id`): absent is undefined, anything but a non-empty string is 422. */
export function optionalIdParam(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new ValidationError(name, `${name} must be an id`);
  return value;
}

/** An optional unix-seconds query parameter (such as `from`): absent is undefined, anything but 0..MAX_UNIX_SECONDS is 422. */
export function optionalUnixParam(query: Record<string, unknown>, name: string): number | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  const seconds = typeof raw === 'string' && /^\d{1,12}$/.test(raw) ? Number(raw) : NaN;
  if (!(seconds <= MAX_UNIX_SECONDS)) throw new ValidationError(name, `${name} must be a unix timestamp in seconds (at most ${MAX_UNIX_SECONDS})`);
  return seconds;
}

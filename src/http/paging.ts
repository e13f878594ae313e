import { ValidationError } from './errors.js';

export type Paging = { limit: number; offset: number };

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 500;

function integerParam(query: Record<string, unknown>, name: string, fallback: number, min: number, max: number): number {
  const raw = query[name];
  if (raw === undefined) return fallback;
  if (typeof raw !== 'string' || !/^\d+$/.test(raw)) throw new ValidationError(name, `${name} must be an integer from ${min} to ${max}`);
  const value = Number(raw);
  if (value < min || value > max) throw new ValidationError(name, `${name} must be an integer from ${min} to ${max}`);
  return value;
}

/** `limit` (1..500, default 100) and `offset` (>= 0, default 0) from a query string; out of range is 422. */
export function parsePaging(query: Record<string, unknown>): Paging {
  return {
    limit: integerParam(query, 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT),
    offset: integerParam(query, 'offset', 0, 0, Number.MAX_SAFE_INTEGER),
  };
}

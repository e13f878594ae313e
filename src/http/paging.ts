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

const limitParam = (query: Record<string, unknown>, fallback: number) => integerParam(query, 'limit', fallback, 1, MAX_LIMIT);
const offsetParam = (query: Record<string, unknown>) => integerParam(query, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);

/** `limit` (1..500, default 100) and `offset` (>= 0, default 0) from a query string; out of range is 422. */
export function parsePaging(query: Record<string, unknown>): Paging {
  return {
    limit: limitParam(query, DEFAULT_LIMIT),
    offset: offsetParam(query),
  };
}

/** Paging of a list sent whole by default: without `limit`, everything from `offset`; the same bounds as parsePaging. */
export function parseOptionalPaging(query: Record<string, unknown>): { limit: number | undefined; offset: number } {
  return {
    limit: query.limit === undefined ? undefined : limitParam(query, DEFAULT_LIMIT),
    offset: offsetParam(query),
  };
}

import type { ValidateFunction } from 'ajv';
import { storableProblem } from '../../http/storable-input.js';
import { schemaProblem } from '../../http/validation.js';

/** One refused item of a batch: its index, the field at fault and why. */
export type Rejection = { index: number; field?: string; reason: string };

type Problem = Omit<Rejection, 'index'>;

/**
 * How the items of one collector batch are checked: their JSON Schema (`what` names an item in
 * messages), a `timestamp` at most `maxSkewSeconds` (the signed-request skew) ahead of `now` and,
 * when `oldest` is given, no older than its retention; then the stream's own `more` checks.
 */
export type ItemRules<T> = {
  validate: ValidateFunction;
  what: string;
  now: Date;
  maxSkewSeconds: number;
  oldest?: { days: number; retention: string };
  more?: (item: T) => Problem | undefined;
};

function timestampProblem(timestamp: number, rules: ItemRules<unknown>): Problem | undefined {
  const now = Math.floor(rules.now.getTime() / 1000);
  if (timestamp > now + rules.maxSkewSeconds) return { field: 'timestamp', reason: `timestamp is more than ${rules.maxSkewSeconds} seconds in the future` };
  if (rules.oldest && timestamp < now - rules.oldest.days * 86400) return { field: 'timestamp', reason: `timestamp is older than the ${rules.oldest.retention} retention (${rules.oldest.days} days)` };
  return undefined;
}

function itemProblem<T extends { timestamp: number }>(item: unknown, rules: ItemRules<T>): Problem | undefined {
  const schema = schemaProblem(rules.validate, item, rules.what);
  if (schema) return { field: schema.field, reason: schema.detail };
  const unstorable = storableProblem(item);
  if (unstorable) return { field: unstorable.field, reason: unstorable.detail };
  return timestampProblem((item as T).timestamp, rules as ItemRules<unknown>) ?? rules.more?.(item as T);
}

/** Checks every item of a batch on its own and splits it into the valid items and the rejections (one bad item never refuses the batch). */
export function checkItems<T extends { timestamp: number }>(items: unknown[], rules: ItemRules<T>): { valid: T[]; rejected: Rejection[] } {
  const valid: T[] = [];
  const rejected: Rejection[] = [];
  items.forEach((item, index) => {
    const problem = itemProblem(item, rules);
    if (problem) rejected.push({ index, ...problem });
    else valid.push(item as T);
  });
  return { valid, rejected };
}

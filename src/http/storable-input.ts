import { BadRequestError, ValidationError } from './errors.js';

// PostgreSQL cannot store U+0000 in text or jsonb, nor a lone UTF-16 surrogate in jsonb (the audit
// log keeps every request body), and a deeply nested body overflows the stack of recursive code
// (structuredClone, the audit redaction, Prisma's JSON handling). Requests carrying any of these are
// refused here, before validation, instead of failing as a 500 somewhere deeper.

/** The deepest nesting of arrays and objects a request body may have (the body itself is level 1). */
export const MAX_BODY_DEPTH = 64;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

type Pending = { value: unknown; field: string | undefined; depth: number };

function child(field: string | undefined, key: string): string {
  return field === undefined ? key : `${field}.${key}`;
}

function assertStorableString(text: string, field: string | undefined, what: string): void {
  if (text.includes('\u0000')) throw new ValidationError(field, `${what} must not contain NUL characters (U+0000)`);
  if (LONE_SURROGATE.test(text)) throw new ValidationError(field, `${what} must be valid Unicode (it has a lone surrogate)`);
}

/**
 * Walks `value` without recursion and throws a 422 naming the first string (or object key) that
 * holds NUL or a lone surrogate, or a 400 when arrays and objects nest deeper than `maxDepth`.
 * `root` prefixes the field names (undefined for a body, whose fields are named from its top).
 */
export function assertStorableValue(value: unknown, root: string | undefined, maxDepth = MAX_BODY_DEPTH): void {
  const pending: Pending[] = [{ value, field: root, depth: 0 }];
  while (pending.length > 0) {
    const { value: current, field, depth } = pending.pop()!;
    if (typeof current === 'string') {
      assertStorableString(current, field, field ?? 'the body');
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > maxDepth) throw new BadRequestError('request body nested too deeply', `arrays and objects may nest at most ${maxDepth} levels`);
    for (const [key, inner] of Object.entries(current)) {
      assertStorableString(key, field, `the key ${JSON.stringify(key)}`);
      pending.push({ value: inner, field: child(field, key), depth: depth + 1 });
    }
  }
}

/** Refuses path parameters and query values that the database could not store (see assertStorableValue). */
export function assertStorableParameters(params: Record<string, unknown>, query: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(params)) assertStorableValue(value, name);
  for (const [name, value] of Object.entries(query)) {
    assertStorableString(name, undefined, 'a query parameter name');
    assertStorableValue(value, name);
  }
}

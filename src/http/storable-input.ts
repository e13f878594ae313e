import { BadRequestError, ValidationError } from './errors.js';

// PostgreSQL cannot store U+0000 in text or jsonb, nor a lone UTF-16 surrogate in jsonb (the audit
// log keeps every request body), and a deeply nested body overflows the stack of recursive code
// (structuredClone, the audit redaction, Prisma's JSON handling). Requests carrying any of these are
// refused here, before validation, instead of failing as a 500 somewhere deeper.

/** The deepest nesting of arrays and objects a request body may have (the body itself is level 1). */
export const MAX_BODY_DEPTH = 64;

// One cheap test per string on the hot path (collector batches hold tens of thousands); only a hit is looked at closely.
const SUSPECT = /[\u0000\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

type Path = (string | number)[];

function fieldOf(path: Path): string | undefined {
  return path.length === 0 ? undefined : path.join('.');
}

function stringProblem(text: string): string | undefined {
  if (!SUSPECT.test(text)) return undefined;
  if (text.includes('\u0000')) return 'must not contain NUL characters (U+0000)';
  return LONE_SURROGATE.test(text) ? 'must be valid Unicode (it has a lone surrogate)' : undefined;
}

// Depth-first in document order; recursion is safe because it stops at maxDepth levels.
// `path` is the location of `value`, pushed and popped in place so the common case allocates nothing.
function check(value: unknown, path: Path, depth: number, maxDepth: number): void {
  if (typeof value === 'string') {
    const problem = stringProblem(value);
    if (problem) throw new ValidationError(fieldOf(path), `${fieldOf(path) ?? 'the body'} ${problem}`);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (depth >= maxDepth) throw new BadRequestError('request body nested too deeply', `arrays and objects may nest at most ${maxDepth} levels`);
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      path.push(index);
      check(value[index], path, depth + 1, maxDepth);
      path.pop();
    }
    return;
  }
  for (const key of Object.keys(value)) {
    const problem = stringProblem(key);
    if (problem) throw new ValidationError(fieldOf(path), `the key ${JSON.stringify(key)} ${problem}`);
    path.push(key);
    check((value as Record<string, unknown>)[key], path, depth + 1, maxDepth);
    path.pop();
  }
}

/**
 * Throws a 422 naming the first string (or object key) of `value` that holds NUL or a lone
 * surrogate, or a 400 when arrays and objects nest deeper than `maxDepth`. `root` names `value`
 * in field names (undefined for a body, whose fields are named from its top).
 */
export function assertStorableValue(value: unknown, root: string | undefined, maxDepth = MAX_BODY_DEPTH): void {
  check(value, root === undefined ? [] : [root], 0, maxDepth);
}

/** Refuses path parameters and query values that the database could not store (see assertStorableValue). */
export function assertStorableParameters(params: Record<string, unknown>, query: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(params)) assertStorableValue(value, name);
  for (const [name, value] of Object.entries(query)) {
    const problem = stringProblem(name);
    if (problem) throw new ValidationError(undefined, `a query parameter name ${problem}`);
    assertStorableValue(value, name);
  }
}

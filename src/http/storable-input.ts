import { BadRequestError, HttpError, ValidationError } from './errors.js';

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

type Walk = { maxDepth: number; textExempt?: string };

// Depth-first in document order; recursion is safe because it stops at maxDepth levels.
// `path` is the location of `value`, pushed and popped in place so the common case allocates nothing.
// `text` false: only the depth is checked (the strings of items a handler checks one by one).
function check(value: unknown, path: Path, depth: number, walk: Walk, text: boolean): void {
  if (typeof value === 'string') {
    if (!text) return;
    const problem = stringProblem(value);
    if (problem) throw new ValidationError(fieldOf(path), `${fieldOf(path) ?? 'the body'} ${problem}`);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (depth >= walk.maxDepth) throw new BadRequestError('request body nested too deeply', `arrays and objects may nest at most ${walk.maxDepth} levels`);
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      path.push(index);
      check(value[index], path, depth + 1, walk, text);
      path.pop();
    }
    return;
  }
  for (const key of Object.keys(value)) {
    const problem = text ? stringProblem(key) : undefined;
    if (problem) throw new ValidationError(fieldOf(path), `the key ${JSON.stringify(key)} ${problem}`);
    path.push(key);
    check((value as Record<string, unknown>)[key], path, depth + 1, walk, text && !(depth === 0 && key === walk.textExempt));
    path.pop();
  }
}

/**
 * Throws a 422 naming the first string (or object key) of `value` that holds NUL or a lone
 * surrogate, or a 400 when arrays and objects nest deeper than `maxDepth`. `root` names `value`
 * in field names (undefined for a body, whose fields are named from its top).
 */
export function assertStorableValue(value: unknown, root: string | undefined, maxDepth = MAX_BODY_DEPTH): void {
  check(value, root === undefined ? [] : [root], 0, { maxDepth }, true);
}

/**
 * assertStorableValue for a request body whose `itemsField` (an array such as a collector's
 * `events`) the handler checks item by item with storableProblem: the text of those items is
 * left to it, so one bad item is refused alone instead of the whole batch. Depth is checked everywhere.
 */
export function assertStorableBody(body: unknown, itemsField?: string): void {
  check(body, [], 0, { maxDepth: MAX_BODY_DEPTH, textExempt: itemsField }, true);
}

/** The first unstorable text of one item as {field, detail} (field relative to the item), or undefined. */
export function storableProblem(item: unknown): { field?: string; detail: string } | undefined {
  try {
    assertStorableValue(item, undefined);
    return undefined;
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return { field: error.field, detail: error.detail ?? error.message };
  }
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

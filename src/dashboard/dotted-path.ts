export type Body = Record<string, unknown>;

/** The value at a dotted path of a JSON body (`cache_key.query_strings.mode`, `match.paths.0.value`). */
export function valueAt(body: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((value, name) => (value !== null && typeof value === 'object' ? (value as Body)[name] : undefined), body);
}

function isEmptyObject(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;
}

function withValue(node: unknown, names: string[], value: unknown, depth: number): unknown {
  const [name, ...rest] = names;
  const copy: Body | unknown[] = Array.isArray(node) ? [...node] : { ...((node ?? {}) as Body) };
  const current = (copy as Body)[name];
  const next = rest.length ? withValue(current, rest, value, depth + 1) : value;
  // An object inside a top-level field that nothing is left in goes too (`settings.forwarding_url`).
  if (next === undefined || (depth > 0 && rest.length > 0 && isEmptyObject(next))) {
    if (Array.isArray(copy)) copy.splice(Number(name), 1);
    else delete copy[name];
  } else {
    (copy as Body)[name] = next;
  }
  return copy;
}

/** A copy of the body with the value at the dotted path set; undefined removes the field. */
export function withValueAt(body: Body, path: string, value: unknown): Body {
  if (value === undefined && valueAt(body, path) === undefined) return body;
  return withValue(body, path.split('.'), value, 0) as Body;
}

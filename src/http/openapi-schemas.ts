import type { JsonSchema } from './response-schemas.js';

const COMPONENT = '#/components/schemas/';

/** The component name of a schema $id (ids are kebab-case names, which OpenAPI allows as they are). */
export function componentRef(id: string): { $ref: string } {
  return { $ref: `${COMPONENT}${id}` };
}

// A schema file's refs are relative to its $id: `other-id` names another schema, `#/$defs/x` its own part.
function rewriteRef(ref: string, ownId: string): string {
  if (ref.startsWith('#')) return `${COMPONENT}${ownId}${ref.slice(1)}`;
  const [id, pointer = ''] = ref.split('#');
  return `${COMPONENT}${id}${pointer}`;
}

function rewrite(value: unknown, ownId: string, refs: Set<string>): unknown {
  if (Array.isArray(value)) return value.map((item) => rewrite(item, ownId, refs));
  if (!value || typeof value !== 'object') return value;
  const entries = Object.entries(value).map(([key, inner]) => {
    if (key === '$ref' && typeof inner === 'string') {
      if (!inner.startsWith('#')) refs.add(inner.split('#')[0]);
      return [key, rewriteRef(inner, ownId)];
    }
    return [key, rewrite(inner, ownId, refs)];
  });
  return Object.fromEntries(entries);
}

/**
 * A schema file as an OpenAPI component: without `$id` and `$schema` (a component's base is the
 * document), its refs pointing into `#/components/schemas`. `refs` collects the ids it refers to.
 */
export function asComponent(schema: JsonSchema, refs: Set<string>): JsonSchema {
  const { $id, $schema: _dialect, ...rest } = schema;
  return rewrite(rest, String($id), refs) as JsonSchema;
}

/**
 * The components for `ids` and every schema they refer to, each looked up with `schemaOf`
 * (which fails loudly for an unknown id), sorted by name.
 */
export function componentsFor(ids: Iterable<string>, schemaOf: (id: string) => JsonSchema): Record<string, JsonSchema> {
  const components = new Map<string, JsonSchema>();
  const pending = [...ids];
  for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
    if (components.has(id)) continue;
    const refs = new Set<string>();
    components.set(id, asComponent(schemaOf(id), refs));
    pending.push(...refs);
  }
  return Object.fromEntries([...components].sort(([a], [b]) => a.localeCompare(b)));
}

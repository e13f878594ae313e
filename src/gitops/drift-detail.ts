import type { LiveDomain } from './live.js';
import type { Item } from './model.js';
import { itemOf, type Drift } from './ownership.js';
import { createdFields } from './plan.js';
import { fileFields } from './schemas.js';

// The fields of a live item a file could set (not its id, domain or timestamps).
function settable(resource: string, item: Item): Item {
  const fields = new Set(fileFields(resource));
  return Object.fromEntries(Object.entries(item).filter(([field]) => fields.has(field)));
}

/**
 * Drift of an item git does not list (added through the API and left alone) differs from git
 * as a whole, so it has no differing field: it is described by its live fields instead, each
 * with no value in git (`after: null`), leaving out values the API would take by default.
 */
export function withLiveFields(drift: Drift[], live: Map<string, LiveDomain>): Drift[] {
  return drift.map((item) => {
    const model = live.get(item.domain);
    const found = item.action === 'delete' && item.fields.length === 0 && model ? itemOf(model, item) : undefined;
    if (!found) return item;
    return { ...item, fields: createdFields(item.resource, settable(item.resource, found)).map(({ field, after }) => ({ field, before: after, after: null })) };
  });
}

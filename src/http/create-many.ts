import type { Row } from '../db/insert-rows.js';
import { ItemError } from './route.js';

/** How one kind of item is checked, keyed and stored by createMany. */
export type CreateManyKind<T> = {
  /** The stored row of a body, after the item's own checks (throws when they refuse it). */
  check: (input: T) => Row;
  /** The row's unique key within its domain (a rule's name, an origin's scheme://host:port). */
  keyOf: (row: Row) => string;
  /** The refusal of a row whose key is taken. */
  duplicate: (row: Row) => Error;
  /** The keys of these rows that stored rows already have. */
  storedKeys: (rows: Row[]) => Promise<Set<string>>;
  /** Inserts the rows, leaving out (undefined) each whose key a stored row has (insertNewRows). */
  insertNew: (rows: Row[]) => Promise<(Row | undefined)[]>;
};

// A body before `index` whose key a stored row has: creating one by one, it would have been refused first.
async function earlierStoredTwin<T>(kind: CreateManyKind<T>, rows: Row[]): Promise<ItemError | undefined> {
  if (!rows.length) return undefined;
  const stored = await kind.storedKeys(rows);
  const index = rows.findIndex((row) => stored.has(kind.keyOf(row)));
  return index < 0 ? undefined : new ItemError(index, kind.duplicate(rows[index]));
}

/**
 * Creates items as one-by-one creates would, in one insert: each body is checked in order (its own
 * rules, then no twin among the bodies before it), and a key already stored is found by the insert
 * itself. The first refused body is thrown as an ItemError with its index, as it would be one by one:
 * a body refused by its checks yields to an earlier one whose key is stored.
 */
export async function createMany<T>(kind: CreateManyKind<T>, inputs: T[]): Promise<Row[]> {
  const rows: Row[] = [];
  const keys = new Set<string>();
  for (const [index, input] of inputs.entries()) {
    try {
      const row = kind.check(input);
      if (keys.has(kind.keyOf(row))) throw kind.duplicate(row);
      keys.add(kind.keyOf(row));
      rows.push(row);
    } catch (error) {
      throw (await earlierStoredTwin(kind, rows)) ?? new ItemError(index, error);
    }
  }
  const inserted = await kind.insertNew(rows);
  const taken = inserted.findIndex((row) => row === undefined);
  if (taken >= 0) throw new ItemError(taken, kind.duplicate(rows[taken]));
  return inserted as Row[];
}

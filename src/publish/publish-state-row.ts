import type { Db } from '../db/client.js';
import { sqlOf } from '../db/sql.js';

// Inserted only when no committed row is there: an INSERT ... ON CONFLICT on a row that exists waits
// for every open transaction that changed it (each change marks the config dirty on it).
const CREATE_WHEN_ABSENT = 'INSERT INTO publish_state (id) SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM publish_state WHERE id = 1) ON CONFLICT (id) DO NOTHING';

/**
 * The single publish_state row, created when absent. The row is first written by whichever comes
 * first: a change marking the config dirty (dirty.ts) or a publish. Prisma's upsert reads, then
 * inserts, so two first writers on different connections made it fail on the primary key; the
 * insert here waits for the other writer's commit and leaves its row.
 */
export async function publishStateRow(db: Db) {
  await sqlOf(db).query(CREATE_WHEN_ABSENT);
  return db.publishState.findUniqueOrThrow({ where: { id: 1 } });
}

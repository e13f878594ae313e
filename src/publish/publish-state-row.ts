import type { Db } from '../db/client.js';
import { sqlOf } from '../db/sql.js';

/**
 * The single publish_state row, created when absent. The row is first written by whichever comes
 * first: a change marking the config dirty (dirty.ts) or a publish. Prisma's upsert reads, then
 * inserts, so two first writers on different connections made it fail on the primary key; an
 * INSERT ... ON CONFLICT DO NOTHING waits for the other writer's commit and leaves its row.
 */
export async function publishStateRow(db: Db) {
  await sqlOf(db).query('INSERT INTO publish_state (id) VALUES (1) ON CONFLICT (id) DO NOTHING');
  return db.publishState.findUniqueOrThrow({ where: { id: 1 } });
}

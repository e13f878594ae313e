import type { Db } from '../../db/client.js';
import { sqlOf } from '../../db/sql.js';

// Only a stored version is recorded: an edge may report one the core no longer (or never) had.
const RECORD_ARRIVAL = `
  INSERT INTO edge_config_arrivals (edge_id, version, first_seen_at)
  SELECT $1, $2, $3 WHERE EXISTS (SELECT 1 FROM config_snapshots WHERE version = $2)
  ON CONFLICT (version, edge_id) DO NOTHING`;

/**
 * Records when an edge first reported serving `version` (a heartbeat whose config_version
 * changed). The rollout reads it as the time the edge took; the row goes with its snapshot.
 */
export async function recordArrival(db: Db, edgeId: string, version: number, now: Date): Promise<void> {
  await sqlOf(db).query(RECORD_ARRIVAL, [edgeId, version, now]);
}

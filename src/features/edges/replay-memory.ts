import type pg from 'pg';
import type { Logger } from 'pino';

// The replay memory is edge_nonces: every nonce accepted within its window. Both
// it and edge_nonce_memory are unlogged (no WAL, no fsync per signed request), so
// a database crash or a failover to a standby empties them together. The one row
// of edge_nonce_memory says since when the memory is complete; a request signed
// before that may have been accepted already and its nonce lost, so it is refused.

// The next whole second: edges sign whole seconds, so a request stamped with that
// second or later was signed after the memory restarted (with an accurate clock).
const RESTART = `
  INSERT INTO edge_nonce_memory (id, complete_since) VALUES (1, date_trunc('second', now()) + interval '1 second')
  ON CONFLICT (id) DO NOTHING
  RETURNING complete_since`;

/**
 * Starts the replay memory again after it was found empty; several cores may
 * race, the first one's time wins. Logs a warning when this core restarted it.
 */
export async function restartReplayMemory(pool: pg.Pool, log?: Logger): Promise<void> {
  const { rows } = await pool.query<{ complete_since: Date }>(RESTART);
  if (rows[0]) log?.warn({ completeSince: rows[0].complete_since.toISOString() }, 'edge replay memory was empty (database crash or failover); refusing edge requests signed before it restarted');
}

/** The refusal of a request signed before the replay memory restarted. */
export function signedBeforeRestart(completeSince: Date): string {
  return `signed before the replay memory restarted at ${completeSince.toISOString()} (the database lost its nonces in a crash or failover); sign the request again`;
}

// The long-poll of the edge config pull (docs/edge-protocol.md, "Push: waiting for a new version"):
// `wait=SECONDS` holds a request whose answer would be "not modified" until a newer version is
// active or the wait ends. The request was authenticated when it arrived; holding it costs a
// timer and a socket, no database connection.
import { ValidationError } from '../../http/errors.js';
import { Reply } from '../../http/route.js';
import type { ActiveVersion } from '../../publish/active-version.js';

/** The longest hold: well inside the signature skew window and node's request timeouts, and short enough that a silently dead connection is found soon. */
export const MAX_WAIT_SECONDS = 60;

/** The `wait` query parameter in seconds (0 when absent); 422 naming it when it is not 0-60. */
export function waitSeconds(query: Record<string, unknown>): number {
  if (query.wait === undefined) return 0;
  if (typeof query.wait !== 'string' || !/^\d{1,2}$/.test(query.wait) || Number(query.wait) > MAX_WAIT_SECONDS) {
    throw new ValidationError('wait', `wait must be whole seconds from 0 to ${MAX_WAIT_SECONDS}`);
  }
  return Number(query.wait);
}

/**
 * Holds the request while the version served to `edgeId` (docs/rollout.md) is still `edgeVersion` (null: the edge has none and
 * nothing is published), at most `seconds`. Returns the answer when the core stops meanwhile: 503, so
 * the edge asks again (another replica, or this one restarted) at once instead of taking it for "no
 * change"; a Reply rather than an error, since a core stopping is no fault to log for each held edge,
 * and it closes the connection, which the stopping server would otherwise keep serving until its grace ends.
 */
export async function awaitNewerVersion(active: ActiveVersion, edgeVersion: number | null, seconds: number, edgeId: string): Promise<Reply | undefined> {
  if (seconds === 0) return undefined;
  const outcome = await active.changeFrom(edgeVersion, seconds * 1000, edgeId);
  return outcome === 'stopping' ? new Reply(503, { error: 'core is stopping', detail: 'ask again' }, { Connection: 'close' }) : undefined;
}

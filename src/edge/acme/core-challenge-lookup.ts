import type { Config } from '../../config/load.js';
import { createCoreClient } from '../agent/core-client.js';
import { resolveEdgeId } from '../agent/edge-agent.js';
import type { ChallengeLookup } from './acme-challenge-phase.js';

const TIMEOUT_MS = 3000;

/** Looks challenges up at the core with a request signed by the edge's token (GET /api/v1/edge/acme-challenge/{token}). */
export function coreChallengeLookup(config: Config): ChallengeLookup {
  if (!config.edgeToken) return async () => undefined;
  const client = createCoreClient({ coreUrl: config.edgeCoreUrl, edgeId: resolveEdgeId(config.edgeId), token: config.edgeToken, timeoutMs: TIMEOUT_MS });
  return async (token, host) => {
    const answer = await client.send('GET', `/api/v1/edge/acme-challenge/${token}?host=${encodeURIComponent(host)}`, undefined, { maxAnswerBytes: 8192 });
    if (answer.status !== 200) return undefined;
    return answer.json<{ data: { key_authorization: string } }>().data.key_authorization;
  };
}

import type { AppDeps } from '../../http/app.js';
import type { Actor } from '../../http/actor.js';
import { parsePaging } from '../../http/paging.js';
import type { Route } from '../../http/route.js';
import { edgeCountries, edgeDns, edgePools, heartbeat, listEdges, recordHeartbeatFailure, registerEdge } from './service.js';

function edgeOf(actor: Actor): { edgeId: string; tokenId: string } {
  if (actor.type !== 'edge') throw new Error('edge route without an edge actor');
  return actor;
}

/** Signed edge endpoints (register, heartbeat) and the operator's reads of the edge pool. */
export function edgeRoutes(deps: AppDeps): Route[] {
  const fresh = deps.config.edgeHeartbeatFreshSeconds;
  return [
    {
      method: 'post',
      path: '/api/v1/edge/register',
      response: 'edge-node-answer',
      auth: 'edge',
      body: 'edge-register',
      handler: async ({ db, body, actor }) => {
        const { edgeId, tokenId } = edgeOf(actor);
        return { data: await registerEdge(db, body, edgeId, tokenId, fresh) };
      },
    },
    {
      method: 'post',
      path: '/api/v1/edge/heartbeat',
      response: 'edge-node-answer',
      auth: 'edge',
      body: 'edge-heartbeat',
      handler: async ({ db, body, actor }) => {
        const { edgeId, tokenId } = edgeOf(actor);
        return { data: await heartbeat(db, body, edgeId, tokenId, fresh) };
      },
      onRefused: async ({ db, actor }, error) => recordHeartbeatFailure(db, edgeOf(actor).edgeId, error),
    },
    { method: 'get', path: '/api/v1/edge/nodes', response: 'edge-node-list-answer', auth: 'api', paged: true, handler: async ({ db, query }) => ({ data: await listEdges(db, parsePaging(query), fresh) }) },
    { method: 'get', path: '/api/v1/edges/pools', response: 'edges-pools-answer', auth: 'api', handler: async ({ db }) => ({ data: await edgePools(db, fresh) }) },
    { method: 'get', path: '/api/v1/edges/dns', response: 'edges-dns-answer', auth: 'api', handler: async ({ db }) => ({ data: await edgeDns(db, fresh) }) },
    { method: 'get', path: '/api/v1/edge-countries', response: 'edge-countries-answer', auth: 'api', handler: async ({ db }) => ({ data: await edgeCountries(db, fresh) }) },
  ];
}

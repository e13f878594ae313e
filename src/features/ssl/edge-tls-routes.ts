import type { AppDeps } from '../../http/app.js';
import { ValidationError } from '../../http/errors.js';
import type { Route } from '../../http/route.js';
import { hashToken } from '../../http/tokens.js';
import { keysForEdge } from './key-delivery.js';
import { secretBoxOf } from './key-storage.js';
import { checkServedCertificate } from './tls-check.js';

function versionOf(query: Record<string, unknown>): number {
  const text = query.version;
  if (typeof text !== 'string' || !/^\d{1,9}$/.test(text)) throw new ValidationError('version', 'must be the snapshot version the edge holds (a non-negative integer)');
  return Number(text);
}

// The route's edge authentication checked this very header already.
function bearerHash(headers: Record<string, string | undefined>): string {
  return hashToken(/^Bearer[ ]+(\S+)$/i.exec(headers.authorization ?? '')![1]);
}

/** What edges need for TLS beyond the snapshot (their certificates' private keys, sealed for them), and the operator's check of what an edge serves. */
export function edgeTlsRoutes(deps: AppDeps): Route[] {
  const box = secretBoxOf(deps.config);
  const limits = { freshSeconds: deps.config.edgeHeartbeatFreshSeconds, timeoutMs: deps.config.originCheckTimeoutMs };
  return [
    {
      method: 'post',
      path: '/api/v1/domains/:domainId/ssl/check',
      response: 'post-domains-ssl-check-answer',
      auth: 'api',
      body: 'ssl-check',
      handler: async ({ db, params, body }) => ({ data: await checkServedCertificate(db, params.domainId, body, limits) }),
    },
    {
      method: 'get',
      path: '/api/v1/edge/certificate-keys',
      response: 'edge-certificate-keys-answer',
      query: [{ name: 'version', description: 'The snapshot version the edge holds: the active one or the one it last reported serving (else 409; 404 when that version is not stored).', schema: { type: 'integer', minimum: 0 }, required: true }],
      refusals: [404, 409],
      auth: 'edge',
      handler: async ({ db, query, headers, actor, log }) => {
        if (actor.type !== 'edge') throw new Error('edge route without an edge actor');
        return { data: await keysForEdge(db, box, deps.activeVersion, versionOf(query), { edgeId: actor.edgeId, tokenHash: bearerHash(headers) }, log) };
      },
    },
  ];
}

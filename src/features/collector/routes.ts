import type { AppDeps } from '../../http/app.js';
import type { Route } from '../../http/route.js';
import { validatorFor } from '../../http/validation.js';
import { inTransaction } from '../../db/transaction.js';
import { transaction } from '../../db/sql.js';
import { ingestOriginHealth } from './origin-health.js';
import { ingestSecurityEvents } from './security.js';
import { ingestUsage } from './usage.js';
import { clientIpPolicyLoader } from './client-ip-key.js';

const INGEST_TRANSACTION = { timeout: 30000, maxWait: 10000 };

/** The collector: usage events (with their aggregates), security events and origin health observations from edges, one transaction per batch. */
export function collectorRoutes(deps: AppDeps): Route[] {
  const validate = validatorFor(deps.ajv, 'usage-event');
  const validateSecurity = validatorFor(deps.ajv, 'security-event');
  const validateObservation = validatorFor(deps.ajv, 'origin-health-observation');
  const clientIp = clientIpPolicyLoader(deps.config, deps.pool);
  return [
    {
      method: 'post',
      path: '/api/v1/collector/origin-health',
      response: 'post-collector-origin-health-answer',
      auth: 'edge',
      body: 'collector-origin-health',
      itemsCheckedOneByOne: 'observations',
      // Once a second from every edge: raw pg, three statements in one transaction.
      handler: async ({ body, actor }) => {
        const edgeId = actor.type === 'edge' ? actor.edgeId : 'unknown';
        const bounds = { validate: validateObservation, maxSkewSeconds: deps.config.edgeSignatureMaxSkewSeconds, retentionDays: deps.config.analyticsRetentionDays };
        const result = await inTransaction(deps.pool, (client) => ingestOriginHealth(client, body.observations, edgeId, bounds));
        deps.metrics?.ingested('origin_health', { accepted: result.accepted, rejected: result.rejected.length });
        return { data: result };
      },
    },
    {
      method: 'post',
      path: '/api/v1/collector/security-events',
      response: 'collector-result-answer',
      auth: 'edge',
      body: 'collector-security-events',
      itemsCheckedOneByOne: 'events',
      handler: async ({ db, body, actor }) => {
        const edgeId = actor.type === 'edge' ? actor.edgeId : 'unknown';
        const options = { validate: validateSecurity, clientIp: await clientIp(), maxSkewSeconds: deps.config.edgeSignatureMaxSkewSeconds };
        const result = await transaction(db, (tx) => ingestSecurityEvents(tx, body, edgeId, options), INGEST_TRANSACTION);
        deps.metrics?.ingested('security', { accepted: result.accepted, rejected: result.rejected.length, duplicate: result.duplicate });
        return { data: result };
      },
    },
    {
      method: 'post',
      path: '/api/v1/collector/usage',
      response: 'collector-result-answer',
      auth: 'edge',
      body: 'collector-usage',
      itemsCheckedOneByOne: 'events',
      // The hottest write path: raw pg, a read and one statement per batch.
      handler: async ({ body, actor }) => {
        const edgeId = actor.type === 'edge' ? actor.edgeId : 'unknown';
        const options = { validate, clientIp: await clientIp(), maxSkewSeconds: deps.config.edgeSignatureMaxSkewSeconds, retentionDays: deps.config.analyticsRetentionDays };
        const result = await ingestUsage(deps.pool, body, edgeId, options);
        deps.metrics?.ingested('usage', { accepted: result.accepted, rejected: result.rejected.length, duplicate: result.duplicate });
        return { data: result };
      },
    },
  ];
}

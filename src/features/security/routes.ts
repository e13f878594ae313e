import type { Route } from '../../http/route.js';
import { parsePaging } from '../../http/paging.js';
import { optionalIdParam } from '../../http/query.js';
import { parseWindow } from '../analytics/window.js';
import { listSecurityEvents, securitySummary } from './service.js';
import { DOMAIN_ID_FILTER, TIME_WINDOW } from '../../http/query-parameters.js';

/** Security events (all domains or one) and their summary over a window (default the last 24 hours). */
export function securityRoutes(): Route[] {
  return [
    { method: 'get', path: '/api/v1/security/events', response: 'security-event-list-answer', query: [DOMAIN_ID_FILTER], auth: 'api', paged: true, handler: async ({ db, query }) => ({ data: await listSecurityEvents(db, parsePaging(query), optionalIdParam(query, 'domain_id')) }) },
    {
      method: 'get',
      path: '/api/v1/domains/:domainId/security/events',
      response: 'security-event-list-answer',
      auth: 'api',
      paged: true,
      handler: async ({ db, params, query }) => ({ data: await listSecurityEvents(db, parsePaging(query), params.domainId) }),
    },
    {
      method: 'get',
      path: '/api/v1/security/summary',
      response: 'security-summary-answer',
      query: [DOMAIN_ID_FILTER, { name: 'bucket', description: 'Series resolution (default hour).', schema: { type: 'string', enum: ['minute', 'hour', 'day'], default: 'hour' } }, ...TIME_WINDOW],
      auth: 'api',
      handler: async ({ db, query }) => ({ data: await securitySummary(db, parseWindow({ bucket: 'hour', ...query }), optionalIdParam(query, 'domain_id')) }),
    },
  ];
}

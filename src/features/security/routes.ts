import type { Route } from '../../http/route.js';
import { parsePaging } from '../../http/paging.js';
import { ValidationError } from '../../http/errors.js';
import { parseWindow } from '../analytics/window.js';
import { listSecurityEvents, securitySummary } from './service.js';

function domainFilter(query: Record<string, unknown>): string | undefined {
  if (query.domain_id === undefined) return undefined;
  if (typeof query.domain_id !== 'string' || query.domain_id === '') throw new ValidationError('domain_id', 'domain_id must be a domain id');
  return query.domain_id;
}

/** Security events (all domains or one) and their summary over a window (default the last 24 hours). */
export function securityRoutes(): Route[] {
  return [
    { method: 'get', path: '/api/v1/security/events', auth: 'api', handler: async ({ db, query }) => ({ data: await listSecurityEvents(db, parsePaging(query), domainFilter(query)) }) },
    {
      method: 'get',
      path: '/api/v1/domains/:domainId/security/events',
      auth: 'api',
      handler: async ({ db, params, query }) => ({ data: await listSecurityEvents(db, parsePaging(query), params.domainId) }),
    },
    {
      method: 'get',
      path: '/api/v1/security/summary',
      auth: 'api',
      handler: async ({ db, query }) => ({ data: await securitySummary(db, parseWindow({ bucket: 'hour', ...query }), domainFilter(query)) }),
    },
  ];
}

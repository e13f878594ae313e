import { parsePaging } from '../../http/paging.js';
import { optionalIdParam } from '../../http/query.js';
import type { Route } from '../../http/route.js';
import { listAuditEvents } from './service.js';

/** The audit log, newest first; `domain_id` filters. */
export function auditRoutes(): Route[] {
  return [
    {
      method: 'get',
      path: '/api/v1/audit',
      auth: 'api',
      paged: true,
      handler: async ({ db, query }) => ({
        data: await listAuditEvents(db, parsePaging(query), optionalIdParam(query, 'domain_id')),
      }),
    },
  ];
}

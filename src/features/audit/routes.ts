import { parsePaging } from '../../http/paging.js';
import type { Route } from '../../http/route.js';
import { auditFilterOf } from './filter.js';
import { listAuditEvents } from './service.js';

/** The audit log, newest first; `actor`, `action`, `target_type`, `target`, `from`, `to` and `domain_id` filter (filter.ts). */
export function auditRoutes(): Route[] {
  return [
    {
      method: 'get',
      path: '/api/v1/audit',
      auth: 'api',
      paged: true,
      handler: async ({ db, query }) => ({
        data: await listAuditEvents(db, parsePaging(query), auditFilterOf(query)),
      }),
    },
  ];
}

import { parsePaging } from '../../http/paging.js';
import type { Route } from '../../http/route.js';
import { auditFilterOf } from './filter.js';
import { listAuditEvents } from './service.js';
import { DOMAIN_ID_FILTER, TIME_WINDOW } from '../../http/query-parameters.js';

/** The audit log, newest first; `actor`, `action`, `target_type`, `target`, `from`, `to` and `domain_id` filter (filter.ts). */
export function auditRoutes(): Route[] {
  return [
    {
      method: 'get',
      path: '/api/v1/audit',
      response: 'audit-answer',
      query: [
        DOMAIN_ID_FILTER,
        { name: 'actor', description: 'Only events of this actor (exact, any case).', schema: { type: 'string', maxLength: 256 } },
        { name: 'action', description: 'An action such as dns_record.create, or a resource such as dns_record for all of its actions.', schema: { type: 'string', pattern: '^[a-z_]{1,64}(\\.[a-z_]{1,64})?$' } },
        { name: 'target_type', description: 'Only events on this target type (domain, dns_record...).', schema: { type: 'string', pattern: '^[a-z_]{1,64}$' } },
        { name: 'target', description: 'A target\'s id, or part of its name or its domain\'s apex (any case).', schema: { type: 'string', maxLength: 256 } },
        ...TIME_WINDOW,
      ],
      auth: 'api',
      paged: true,
      handler: async ({ db, query }) => ({
        data: await listAuditEvents(db, parsePaging(query), auditFilterOf(query)),
      }),
    },
  ];
}

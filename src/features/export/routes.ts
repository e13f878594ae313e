import type { AppDeps } from '../../http/app.js';
import { parsePaging } from '../../http/paging.js';
import type { Route } from '../../http/route.js';
import { cacheDefaults } from '../cache/routes.js';
import { sslDefaults } from '../ssl/routes.js';
import { exportNamesOf, MAX_EXPORT_NAMES } from './names-filter.js';
import { exportDomains } from './service.js';

/** Bulk read of whole domains (GET /api/v1/export/domains?limit&offset&domains) for reconcilers and backups. */
export function exportRoutes(deps: AppDeps): Route[] {
  const defaults = cacheDefaults(deps);
  const ssl = sslDefaults(deps);
  return [
    {
      method: 'get',
      path: '/api/v1/export/domains',
      response: 'export-domains-answer',
      query: [{ name: 'domains', description: `Only these apexes: 1 to ${MAX_EXPORT_NAMES} hostnames separated by commas.`, schema: { type: 'string' } }],
      auth: 'api',
      paged: true,
      handler: async ({ db, query }) => ({ data: await exportDomains(db, parsePaging(query), exportNamesOf(query), defaults, ssl) }),
    },
  ];
}

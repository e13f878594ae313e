import type { Route } from '../../http/route.js';
import { listGeoRoutes, previewRouting, replaceGeoRoutes } from './geo-routes.js';
import { getRouting, updateRouting } from './service.js';

const DOMAIN = '/api/v1/domains/:domainId';
const RECORD = `${DOMAIN}/dns/records/:recordId`;

/** Per-domain routing settings, geo routes per record and the routing preview. */
export function routingRoutes(): Route[] {
  return [
    { method: 'get', path: `${DOMAIN}/routing`, response: 'domain-routing-answer', auth: 'api', handler: async ({ db, params }) => ({ data: await getRouting(db, params.domainId) }) },
    {
      method: 'patch',
      path: `${DOMAIN}/routing`,
      response: 'domain-routing-answer',
      auth: 'api',
      body: 'routing-settings',
      audit: { action: 'routing.update', target: 'domain', targetId: ({ params }) => params.domainId },
      publishes: true,
      handler: async ({ db, params, body }) => ({ data: await updateRouting(db, params.domainId, body) }),
    },
    { method: 'get', path: `${RECORD}/geo-routes`, response: 'geo-route-list-answer', auth: 'api', handler: async ({ db, params }) => ({ data: await listGeoRoutes(db, params.domainId, params.recordId) }) },
    {
      method: 'put',
      path: `${RECORD}/geo-routes`,
      response: 'geo-route-list-answer',
      auth: 'api',
      body: 'geo-routes-put',
      audit: { action: 'geo_routes.replace', target: 'dns_record', targetId: ({ params }) => params.recordId },
      publishes: true,
      handler: async ({ db, params, body }) => ({ data: await replaceGeoRoutes(db, params.domainId, params.recordId, body.routes) }),
    },
    {
      method: 'post',
      path: `${RECORD}/preview-routing`,
      response: 'post-domains-dns-records-preview-routing-answer',
      auth: 'api',
      body: 'preview-routing',
      optionalBody: true,
      handler: async ({ db, params, body }) => ({ data: await previewRouting(db, params.domainId, params.recordId, body) }),
    },
  ];
}

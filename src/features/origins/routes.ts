import type { AppDeps } from '../../http/app.js';
import { parsePaging } from '../../http/paging.js';
import type { Route } from '../../http/route.js';
import { checkOrigin, createOrigin, createOrigins, deleteOrigin, listOrigins, updateOrigin } from './service.js';

const ORIGINS = '/api/v1/domains/:domainId/origins';

/** Origin CRUD and the manual (diagnostic) check. */
export function originRoutes(deps: AppDeps): Route[] {
  return [
    {
      method: 'get',
      path: ORIGINS,
      response: 'origin-list-answer',
      auth: 'api',
      paged: true,
      handler: async ({ db, params, query }) => ({ data: await listOrigins(db, params.domainId, parsePaging(query)) }),
    },
    {
      method: 'post',
      path: ORIGINS,
      response: 'origin-answer',
      auth: 'api',
      body: 'origin-request',
      status: 201,
      audit: { action: 'origin.create', target: 'origin' },
      publishes: true,
      handler: async ({ db, params, body }) => ({ data: await createOrigin(db, params.domainId, body) }),
      createMany: async ({ db, params }, bodies) => (await createOrigins(db, params.domainId, bodies)).map((data) => ({ data })),
    },
    {
      method: 'patch',
      path: `${ORIGINS}/:originId`,
      response: 'origin-answer',
      auth: 'api',
      body: 'origin-patch',
      audit: { action: 'origin.update', target: 'origin' },
      publishes: true,
      handler: async ({ db, params, body }) => ({ data: await updateOrigin(db, params.domainId, params.originId, body) }),
    },
    {
      method: 'delete',
      path: `${ORIGINS}/:originId`,
      response: 'ok-answer',
      auth: 'api',
      audit: { action: 'origin.delete', target: 'origin' },
      publishes: true,
      handler: async ({ db, params }) => {
        await deleteOrigin(db, params.domainId, params.originId);
        return { ok: true };
      },
    },
    {
      method: 'post',
      path: `${ORIGINS}/:originId/check`,
      response: 'post-domains-origins-check-answer',
      auth: 'api',
      handler: async ({ db, params }) => ({ data: await checkOrigin(db, params.domainId, params.originId, deps.config.originCheckTimeoutMs) }),
    },
  ];
}

import type { AppDeps } from '../../http/app.js';
import { parsePaging } from '../../http/paging.js';
import type { Route } from '../../http/route.js';
import { validatorFor } from '../../http/validation.js';
import { createPurge, getPurge, listPurges } from './purge.js';
import { getCacheSettings, putCacheSettings, type CacheSettingsInput } from './settings.js';

const DOMAIN = '/api/v1/domains/:domainId';

/** The defaults of the cache-settings schema are the documented defaults: validating {} yields them. */
export function cacheDefaults(deps: AppDeps): CacheSettingsInput {
  const defaults = {};
  validatorFor(deps.ajv, 'cache-settings')(defaults);
  return defaults as CacheSettingsInput;
}

/** Cache settings (replace semantics) and purge requests. */
export function cacheRoutes(deps: AppDeps): Route[] {
  const defaults = cacheDefaults(deps);
  return [
    { method: 'get', path: `${DOMAIN}/cache/settings`, response: 'domain-cache-settings-answer', auth: 'api', handler: async ({ db, params }) => ({ data: await getCacheSettings(db, params.domainId, defaults) }) },
    {
      method: 'put',
      path: `${DOMAIN}/cache/settings`,
      response: 'domain-cache-settings-answer',
      auth: 'api',
      body: 'cache-settings',
      audit: { action: 'cache_settings.replace', target: 'domain', targetId: ({ params }) => params.domainId },
      publishes: true,
      handler: async ({ db, params, body }) => ({ data: await putCacheSettings(db, params.domainId, body) }),
    },
    {
      method: 'post',
      path: `${DOMAIN}/cache/purge`,
      response: 'purge-request-answer',
      auth: 'api',
      body: 'cache-purge',
      status: 201,
      audit: { action: 'cache.purge', target: 'purge_request' },
      publishes: true,
      handler: async ({ db, params, body, actor }) => ({ data: await createPurge(db, params.domainId, body, actor) }),
    },
    { method: 'get', path: `${DOMAIN}/cache/purge-requests`, response: 'purge-request-list-answer', auth: 'api', paged: true, handler: async ({ db, params, query }) => ({ data: await listPurges(db, params.domainId, parsePaging(query)) }) },
    { method: 'get', path: `${DOMAIN}/cache/purge-requests/:requestId`, response: 'domains-cache-purge-requests-one-answer', auth: 'api', handler: async ({ db, params }) => ({ data: await getPurge(db, params.domainId, params.requestId) }) },
  ];
}

import type { AppDeps } from '../../http/app.js';
import { parsePaging } from '../../http/paging.js';
import type { Route } from '../../http/route.js';
import { cachedJson, VersionedCache } from '../../http/versioned-cache.js';
import { delegationLookup } from './delegation.js';
import { platformNameservers } from './platform-nameservers.js';
import { forceVerify, reseedExpected, verifyReport } from './nameservers.js';
import { activateDomain, createDomain, deleteDomain, domainFilterOf, findDomain, listDomains, updateDomain, verifyNameservers } from './service.js';
import { serializeDomain } from './serialize.js';

/** Domain CRUD, delegation verification (and its admin overrides) and activation. */
export function domainRoutes(deps: AppDeps): Route[] {
  const lookup = delegationLookup(deps.config);
  // The domain list is the hottest read (dashboards, the reconciler): pages are served
  // from memory while the `domains` read version is unchanged.
  const pages = new VersionedCache();
  return [
    {
      method: 'get',
      path: '/api/v1/domains',
      response: 'domain-list-answer',
      query: [
        { name: 'q', description: 'Only domains whose apex contains this part of a domain name (any case; letters, digits, dots and hyphens).', schema: { type: 'string', pattern: '^[A-Za-z0-9.-]{1,253}$' } },
        { name: 'status', description: 'Only domains in this status.', schema: { type: 'string', enum: ['pending_nameserver', 'active', 'disabled'] } },
      ],
      auth: 'api',
      paged: true,
      handler: async ({ db, query }) => {
        const paging = parsePaging(query);
        const filter = domainFilterOf(query);
        // Filtered pages are not kept: any text can be asked for, and the cache would grow with it.
        if (filter.q || filter.status) return { data: await listDomains(db, paging, filter) };
        return cachedJson(pages, deps.pool, 'domains', `${paging.limit}:${paging.offset}`, async () => ({ data: await listDomains(db, paging) }));
      },
    },
    {
      method: 'post',
      path: '/api/v1/domains',
      response: 'domain-answer',
      auth: 'api',
      body: 'domain-create',
      status: 201,
      audit: { action: 'domain.create', target: 'domain' },
      publishes: true,
      handler: async ({ db, body, actor }) => ({ data: await createDomain(db, body, actor, await platformNameservers(db, deps.config)) }),
    },
    {
      method: 'get',
      path: '/api/v1/domains/:domainId',
      response: 'domain-answer',
      auth: 'api',
      handler: async ({ db, params }) => ({ data: serializeDomain(await findDomain(db, params.domainId)) }),
    },
    {
      method: 'patch',
      path: '/api/v1/domains/:domainId',
      response: 'domain-answer',
      auth: 'api',
      body: 'domain-update',
      audit: { action: 'domain.update', target: 'domain' },
      publishes: true,
      handler: async ({ db, params, body }) => ({ data: await updateDomain(db, params.domainId, body) }),
    },
    {
      method: 'delete',
      path: '/api/v1/domains/:domainId',
      response: 'ok-answer',
      auth: 'api',
      audit: { action: 'domain.delete', target: 'domain' },
      publishes: true,
      handler: async ({ db, params }) => {
        await deleteDomain(db, params.domainId);
        return { ok: true };
      },
    },
    {
      method: 'post',
      path: '/api/v1/domains/:domainId/verify-nameservers',
      response: 'domain-answer',
      auth: 'api',
      audit: { action: 'domain.verify_nameservers', target: 'domain' },
      publishes: true,
      handler: async ({ db, params }) => {
        const { domain, lookupError } = await verifyNameservers(db, params.domainId, lookup);
        return lookupError ? { data: domain, warning: lookupError } : { data: domain };
      },
    },
    {
      method: 'post',
      path: '/api/v1/domains/:domainId/activate',
      response: 'domain-answer',
      auth: 'api',
      body: 'domain-activate',
      optionalBody: true,
      audit: { action: 'domain.activate', target: 'domain' },
      publishes: true,
      // Onboarding creates, fills and activates a domain in one batch; its delegation lookup runs there as here.
      batchable: true,
      handler: async ({ db, params, body }) => ({ data: await activateDomain(db, params.domainId, body.override === true, lookup) }),
    },
    {
      method: 'post',
      path: '/api/v1/domains/:domainId/nameservers/verify',
      response: 'post-domains-nameservers-verify-answer',
      auth: 'api',
      audit: { action: 'domain.verify_nameservers', target: 'domain', targetId: ({ params }) => params.domainId },
      publishes: true,
      handler: async ({ db, params }) => ({ data: await verifyReport(db, params.domainId, lookup) }),
    },
    {
      method: 'post',
      path: '/api/v1/domains/:domainId/nameservers/force-verify',
      response: 'post-domains-nameservers-force-verify-answer',
      auth: 'admin-session',
      body: 'nameservers-force-verify',
      audit: { action: 'domain.nameservers_force_verify', target: 'domain', targetId: ({ params }) => params.domainId },
      publishes: true,
      handler: async ({ db, params, body }) => ({ data: await forceVerify(db, params.domainId, body.reason) }),
    },
    {
      method: 'post',
      path: '/api/v1/domains/:domainId/nameservers/reseed-expected',
      response: 'post-domains-nameservers-reseed-expected-answer',
      auth: 'admin-session',
      audit: { action: 'domain.nameservers_reseed_expected', target: 'domain', targetId: ({ params }) => params.domainId },
      publishes: true,
      handler: async ({ db, params }) => ({ data: await reseedExpected(db, params.domainId, await platformNameservers(db, deps.config)) }),
    },
  ];
}

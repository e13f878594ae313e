import type { Route } from '../../http/route.js';
import { optionalIdParam } from '../../http/query.js';
import { assertDomainExists } from '../domains/service.js';
import { groupValues } from '../settings/store.js';
import { cacheAnalytics, recalculateUsage, usageSummary } from './usage.js';
import { parseWindow, type Bucket } from './window.js';
import type { Db } from '../../db/client.js';
import { ANALYTICS_WINDOW, DOMAIN_ID_FILTER } from '../../http/query-parameters.js';

async function window(db: Db, query: Record<string, unknown>) {
  const { default_bucket } = await groupValues(db, 'analytics');
  return parseWindow(query, default_bucket as Bucket);
}

async function scoped(db: Db, domainId: string | undefined): Promise<string | undefined> {
  if (domainId) await assertDomainExists(db, domainId);
  return domainId;
}

/** Usage and cache analytics from the aggregates, and their rebuild from raw events. */
export function analyticsRoutes(): Route[] {
  return [
    {
      method: 'get',
      path: '/api/v1/analytics/cache',
      response: 'cache-analytics-answer',
      query: [DOMAIN_ID_FILTER, ...ANALYTICS_WINDOW],
      auth: 'api',
      handler: async ({ db, query }) => ({ data: await cacheAnalytics(db, await window(db, query), await scoped(db, optionalIdParam(query, 'domain_id'))) }),
    },
    {
      method: 'get',
      path: '/api/v1/domains/:domainId/analytics/cache',
      response: 'cache-analytics-answer',
      query: ANALYTICS_WINDOW,
      auth: 'api',
      handler: async ({ db, params, query }) => ({ data: await cacheAnalytics(db, await window(db, query), await scoped(db, params.domainId)) }),
    },
    {
      method: 'get',
      path: '/api/v1/usage/summary',
      response: 'usage-summary-answer',
      query: [DOMAIN_ID_FILTER, ...ANALYTICS_WINDOW],
      auth: 'api',
      handler: async ({ db, query }) => ({ data: await usageSummary(db, await window(db, query), await scoped(db, optionalIdParam(query, 'domain_id'))) }),
    },
    {
      method: 'get',
      path: '/api/v1/domains/:domainId/analytics/summary',
      response: 'domains-analytics-summary-answer',
      query: ANALYTICS_WINDOW,
      auth: 'api',
      handler: async ({ db, params, query }) => ({ data: await usageSummary(db, await window(db, query), await scoped(db, params.domainId)) }),
    },
    {
      method: 'post',
      path: '/api/v1/usage/recalculate',
      response: 'post-usage-recalculate-answer',
      auth: 'api',
      body: 'usage-recalculate',
      optionalBody: true,
      audit: { action: 'usage.recalculate', target: 'usage_aggregates', targetId: ({ body }) => body.domain_id },
      handler: async ({ db, body }) => {
        const buckets: Bucket[] = body.bucket ? [body.bucket] : ['minute', 'hour', 'day'];
        return { data: await recalculateUsage(db, buckets, await scoped(db, body.domain_id)) };
      },
    },
  ];
}

import type { AppDeps } from '../../http/app.js';
import { parsePaging } from '../../http/paging.js';
import type { Route } from '../../http/route.js';
import { cachedJson, VersionedCache } from '../../http/versioned-cache.js';
import { createRecord, createRecords, deleteRecord, listRecords, updateRecord } from './service.js';
import { syncEvents, zoneSync } from './zone-sync.js';
import { DOMAIN_ID_FILTER } from '../../http/query-parameters.js';
import type { QueryParameter } from '../../http/route.js';

const RECORDS = '/api/v1/domains/:domainId/dns/records';

const SYNC_EVENT_FILTERS: QueryParameter[] = [
  DOMAIN_ID_FILTER,
  { name: 'zone', description: 'Only this zone (any case, trailing dot or not).', schema: { type: 'string' } },
  { name: 'success', description: 'Only successful (true) or failed (false) attempts.', schema: { type: 'string', enum: ['true', 'false'] } },
];

/** DNS record CRUD under a domain, and how its zone is published. */
export function dnsRoutes(deps: AppDeps): Route[] {
  // Record lists are read for every domain on each reconcile: served from memory while
  // the `dns_records` read version is unchanged.
  const pages = new VersionedCache(4096);
  return [
    {
      method: 'get',
      path: RECORDS,
      response: 'dns-record-list-answer',
      auth: 'api',
      paged: true,
      handler: async ({ db, params, query }) => {
        const paging = parsePaging(query);
        const key = `${params.domainId}:${paging.limit}:${paging.offset}`;
        return cachedJson(pages, deps.pool, 'dns_records', key, async () => ({ data: await listRecords(db, params.domainId, paging) }));
      },
    },
    {
      method: 'post',
      path: RECORDS,
      response: 'dns-record-answer',
      auth: 'api',
      body: 'dns-record-create',
      status: 201,
      audit: { action: 'dns_record.create', target: 'dns_record' },
      publishes: true,
      handler: async ({ db, params, body }) => ({ data: await createRecord(db, params.domainId, body) }),
      createMany: async ({ db, params }, bodies) => (await createRecords(db, params.domainId, bodies)).map((data) => ({ data })),
    },
    {
      method: 'patch',
      path: `${RECORDS}/:recordId`,
      response: 'dns-record-answer',
      auth: 'api',
      body: 'dns-record-patch',
      audit: { action: 'dns_record.update', target: 'dns_record' },
      publishes: true,
      handler: async ({ db, params, body }) => ({ data: await updateRecord(db, params.domainId, params.recordId, body) }),
    },
    {
      method: 'delete',
      path: `${RECORDS}/:recordId`,
      response: 'ok-answer',
      auth: 'api',
      audit: { action: 'dns_record.delete', target: 'dns_record' },
      publishes: true,
      handler: async ({ db, params }) => {
        await deleteRecord(db, params.domainId, params.recordId);
        return { ok: true };
      },
    },
    { method: 'get', path: '/api/v1/domains/:domainId/dns/sync', response: 'domains-dns-sync-answer', auth: 'api', handler: async ({ db, params }) => ({ data: await zoneSync(db, deps.config, params.domainId) }) },
    { method: 'get', path: '/api/v1/dns/sync-events', response: 'dns-sync-events-answer', query: SYNC_EVENT_FILTERS, auth: 'api', paged: true, handler: async ({ db, query }) => ({ data: await syncEvents(db, query, parsePaging(query)) }) },
  ];
}

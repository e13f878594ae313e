import { parsePaging } from '../../http/paging.js';
import type { Route } from '../../http/route.js';
import { createRecord, deleteRecord, listRecords, updateRecord } from './service.js';

const RECORDS = '/api/v1/domains/:domainId/dns/records';

/** DNS record CRUD under a domain. */
export function dnsRoutes(): Route[] {
  return [
    {
      method: 'get',
      path: RECORDS,
      auth: 'api',
      handler: async ({ db, params, query }) => ({ data: await listRecords(db, params.domainId, parsePaging(query)) }),
    },
    {
      method: 'post',
      path: RECORDS,
      auth: 'api',
      body: 'dns-record-create',
      status: 201,
      audit: { action: 'dns_record.create', target: 'dns_record' },
      handler: async ({ db, params, body }) => ({ data: await createRecord(db, params.domainId, body) }),
    },
    {
      method: 'patch',
      path: `${RECORDS}/:recordId`,
      auth: 'api',
      body: 'dns-record-patch',
      audit: { action: 'dns_record.update', target: 'dns_record' },
      handler: async ({ db, params, body }) => ({ data: await updateRecord(db, params.domainId, params.recordId, body) }),
    },
    {
      method: 'delete',
      path: `${RECORDS}/:recordId`,
      auth: 'api',
      audit: { action: 'dns_record.delete', target: 'dns_record' },
      handler: async ({ db, params }) => {
        await deleteRecord(db, params.domainId, params.recordId);
        return { ok: true };
      },
    },
  ];
}

import type { Db } from '../../db/client.js';
import type { Paging } from '../../http/paging.js';
import { unixSeconds } from '../../http/timestamps.js';

/** Audit events newest first. */
export async function listAuditEvents(db: Db, paging: Paging, domainId?: string) {
  const rows = await db.auditEvent.findMany({
    where: domainId ? { domain_id: domainId } : {},
    orderBy: { id: 'desc' },
    skip: paging.offset,
    take: paging.limit,
  });
  return rows.map((row) => ({ ...row, id: String(row.id), created_at: unixSeconds(row.created_at) }));
}

import type { Db } from '../../db/client.js';
import type { Prisma } from '../../generated/prisma/client.js';
import type { Paging } from '../../http/paging.js';
import { unixSeconds } from '../../http/timestamps.js';
import type { AuditFilter } from './filter.js';

// Prisma passes the text of contains, startsWith and case-insensitive equals to (I)LIKE as it is: its wildcards must match themselves.
const literal = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

function whereOf(filter: AuditFilter): Prisma.AuditEventWhereInput {
  const and: Prisma.AuditEventWhereInput[] = [];
  if (filter.domainId) and.push({ domain_id: filter.domainId });
  if (filter.actor) and.push({ actor: { equals: literal(filter.actor), mode: 'insensitive' } });
  if (filter.action) and.push(filter.action.includes('.') ? { action: filter.action } : { OR: [{ action: filter.action }, { action: { startsWith: `${literal(filter.action)}.` } }] });
  if (filter.targetType) and.push({ target_type: filter.targetType });
  if (filter.target) {
    const part = { contains: literal(filter.target), mode: 'insensitive' } as const;
    and.push({ OR: [{ target_id: filter.target }, { target_name: part }, { domain_name: part }] });
  }
  if (filter.from || filter.to) and.push({ created_at: { gte: filter.from, lt: filter.to } });
  return { AND: and };
}

/** Audit events newest first, narrowed by `filter`. */
export async function listAuditEvents(db: Db, paging: Paging, filter: AuditFilter = {}) {
  const rows = await db.auditEvent.findMany({ where: whereOf(filter), orderBy: { id: 'desc' }, skip: paging.offset, take: paging.limit });
  return rows.map((row) => ({ ...row, id: String(row.id), created_at: unixSeconds(row.created_at) }));
}

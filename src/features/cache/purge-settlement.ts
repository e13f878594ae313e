import type { Db } from '../../db/client.js';
import { markConfigDirty } from '../../publish/dirty.js';

export type PurgeFailure = { id: string; error: string };

/** What one edge reported about the purges of its snapshot on a heartbeat. */
export type PurgeReport = { edgeId: string; acks: string[]; failures: PurgeFailure[]; poolEdgeIds: string[]; now: Date };

// Row locks on the reported purges, in id order so two heartbeats cannot deadlock. They serialize the
// acknowledgements of one purge: the last edge to acknowledge sees every earlier acknowledgement
// committed, so a purge acknowledged by the whole pool at once still completes.
async function lockKnownPurges(db: Db, ids: string[]): Promise<Set<string>> {
  const rows = await db.$queryRaw<{ id: string }[]>`SELECT id FROM purge_requests WHERE id = ANY(${ids}::text[]) ORDER BY id FOR UPDATE`;
  return new Set(rows.map((row) => row.id));
}

// Completes each in-progress purge once every edge of the pool has acknowledged it.
async function recordAcknowledgements(db: Db, report: PurgeReport, known: Set<string>): Promise<string[]> {
  const acked = report.acks.filter((id) => known.has(id));
  await db.purgeAck.createMany({ data: acked.map((id) => ({ purge_id: id, edge_id: report.edgeId, acked_at: report.now })), skipDuplicates: true });
  if (!report.poolEdgeIds.length) return [];
  const open = await db.purgeRequest.findMany({ where: { id: { in: acked }, status: 'in_progress' }, include: { acks: { select: { edge_id: true } } } });
  const completed = open.filter((purge) => {
    const by = new Set(purge.acks.map((ack) => ack.edge_id));
    return report.poolEdgeIds.every((edge) => by.has(edge));
  });
  for (const purge of completed) await db.purgeRequest.update({ where: { id: purge.id }, data: { status: 'completed', completed_at: report.now } });
  return completed.map((purge) => purge.id);
}

// A purge is complete only when every pool edge purged, so one failure is final (the operator purges again).
async function recordFailures(db: Db, report: PurgeReport, known: Set<string>): Promise<string[]> {
  const failed: string[] = [];
  for (const failure of report.failures.filter((item) => known.has(item.id))) {
    const updated = await db.purgeRequest.updateMany({ where: { id: failure.id, status: { in: ['queued', 'in_progress'] } }, data: { status: 'failed', error: `edge ${report.edgeId}: ${failure.error}` } });
    if (updated.count) failed.push(failure.id);
  }
  return failed;
}

/**
 * Applies an edge's purge acknowledgements and failures in the caller's transaction
 * (unknown ids are ignored; purges already completed or failed stay as they are).
 * A purge that completes or fails here marks the config dirty in the same
 * transaction, so the next snapshot no longer carries it and an edge that joins or
 * restarts does not purge again.
 */
export async function settlePurges(db: Db, report: PurgeReport): Promise<{ completed: string[]; failed: string[] }> {
  const known = await lockKnownPurges(db, [...new Set([...report.acks, ...report.failures.map((failure) => failure.id)])].sort());
  const completed = await recordAcknowledgements(db, report, known);
  const failed = await recordFailures(db, report, known);
  if (completed.length || failed.length) await markConfigDirty(db, completed.length ? 'purge.completed' : 'purge.failed', report.now);
  return { completed, failed };
}

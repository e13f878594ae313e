// Reading DNS publishing per zone (docs/dns-publishing.md, "Status"): a domain's
// zone state with its recent write attempts, and the history of every zone.
import type { Config } from '../../config/load.js';
import type { Db } from '../../db/client.js';
import { ValidationError } from '../../http/errors.js';
import type { Paging } from '../../http/paging.js';
import { unixSeconds } from '../../http/timestamps.js';
import { assertDomainExists } from '../domains/service.js';

const RECENT = 20;

type EventRow = { id: bigint; domain_id: string | null; zone_name: string; action: string; success: boolean; status_code: number | null; error: string | null; attempt: number; duration_ms: number | null; changes: number; created_at: Date };

function serializeEvent(row: EventRow) {
  return { id: String(row.id), domain_id: row.domain_id, zone: row.zone_name, action: row.action, success: row.success, status_code: row.status_code, error: row.error, attempts: row.attempt, duration_ms: row.duration_ms, changes: row.changes, created_at: unixSeconds(row.created_at) };
}

type StateRow = { zone_name: string; desired_hash: string | null; published_hash: string | null; last_error: string | null } | null;

/** off (no PowerDNS configured), failing (last attempt failed), in_sync, or pending (changed since written, or never written). */
export function zoneStatus(config: Config, zone: string, state: StateRow): 'off' | 'failing' | 'in_sync' | 'pending' {
  if (!config.powerdnsApiUrl) return 'off';
  if (state?.last_error) return 'failing';
  return state && state.zone_name === zone && state.published_hash === state.desired_hash ? 'in_sync' : 'pending';
}

/** The zone status of each named domain (apexes), for the GitOps run status. */
export async function zoneStatuses(db: Db, config: Config, apexes: string[]): Promise<{ domain: string; zone: string; status: string }[]> {
  const rows = await db.domain.findMany({ where: { domain: { in: apexes } }, select: { domain: true, zone_name: true, dns_zone_state: true }, orderBy: { domain: 'asc' } });
  return rows.map((row) => ({ domain: row.domain, zone: row.zone_name, status: zoneStatus(config, row.zone_name, row.dns_zone_state) }));
}

/**
 * The publication state of a domain's zone: `off` (no PowerDNS configured), `pending`
 * (changed since it was last written, or never written), `failing` (its last attempt
 * failed) or `in_sync`; with the last write attempts, newest first.
 */
export async function zoneSync(db: Db, config: Config, domainId: string) {
  const domain = await assertDomainExists(db, domainId);
  const [state, events] = await Promise.all([
    db.dnsZoneState.findUnique({ where: { domain_id: domainId } }),
    db.dnsSyncEvent.findMany({ where: { domain_id: domainId }, orderBy: { id: 'desc' }, take: RECENT }),
  ]);
  const status = zoneStatus(config, domain.zone_name, state);
  return {
    domain_id: domainId,
    zone: domain.zone_name,
    status,
    last_synced_at: unixSeconds(state?.last_synced_at ?? null),
    last_attempt_at: unixSeconds(state?.last_attempt_at ?? null),
    last_error: state?.last_error ?? null,
    failed_attempts: state?.attempts ?? 0,
    recent_events: events.map(serializeEvent),
  };
}

/** Write attempts of every zone, newest first; `domain_id`, `zone` and `success` (true|false) filter. */
export async function syncEvents(db: Db, query: Record<string, unknown>, paging: Paging) {
  const where: Record<string, unknown> = {};
  if (typeof query.domain_id === 'string') where.domain_id = query.domain_id;
  if (typeof query.zone === 'string') where.zone_name = query.zone.toLowerCase().replace(/\.$/, '');
  if (query.success !== undefined) {
    if (query.success !== 'true' && query.success !== 'false') throw new ValidationError('success', 'success must be true or false');
    where.success = query.success === 'true';
  }
  const rows = await db.dnsSyncEvent.findMany({ where, orderBy: { id: 'desc' }, skip: paging.offset, take: paging.limit });
  return rows.map(serializeEvent);
}

// DNS publishing as /cdn-health, readiness and the overview report it: off when
// no PowerDNS is configured; otherwise the persisted state of the zones.
import type { Config } from '../../config/load.js';
import type { Db } from '../../db/client.js';
import { unixSeconds } from '../../http/timestamps.js';

export type DnsHealth = {
  publishing: 'on' | 'off';
  /** True when publishing is on and no zone's last sync failed. */
  ok: boolean;
  zones: number;
  in_sync: number;
  pending: number;
  failing: number;
  last_synced_at: number | null;
};

/** Counts of the zones by sync state (from dns_zone_states; a domain without a row yet is pending). */
export async function dnsHealth(db: Db, config: Config): Promise<DnsHealth> {
  if (!config.powerdnsApiUrl) return { publishing: 'off', ok: false, zones: 0, in_sync: 0, pending: 0, failing: 0, last_synced_at: null };
  const [domains, rows] = await Promise.all([
    db.domain.count(),
    db.$queryRaw<{ in_sync: bigint; failing: bigint; last_synced_at: Date | null }[]>`
      SELECT count(*) FILTER (WHERE published_hash = desired_hash AND last_error IS NULL)::bigint AS in_sync,
             count(*) FILTER (WHERE last_error IS NOT NULL)::bigint AS failing,
             max(last_synced_at) AS last_synced_at
      FROM dns_zone_states`,
  ]);
  const inSync = Number(rows[0].in_sync);
  const failing = Number(rows[0].failing);
  return { publishing: 'on', ok: failing === 0, zones: domains, in_sync: inSync, pending: Math.max(0, domains - inSync - failing), failing, last_synced_at: unixSeconds(rows[0].last_synced_at) };
}

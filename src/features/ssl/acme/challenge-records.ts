import type { ZoneRecord } from '../../../publish/dns/desired-zone.js';

const TXT_TTL = 60;

/** The TXT records of the live DNS-01 challenges under `zone`, as records of the zone (names relative to it). */
export function challengeRecords(rows: { hostname: string; key_authorization: string }[], zone: string): ZoneRecord[] {
  return rows
    .filter((row) => row.hostname.endsWith(`.${zone}`))
    .map((row) => ({ name: row.hostname.slice(0, -(zone.length + 1)), type: 'TXT', content: row.key_authorization, ttl: TXT_TTL, proxied: false, enabled: true }));
}

import { unixSeconds } from '../../http/timestamps.js';

type NameserverRow = { kind: 'expected' | 'observed'; hostname: string };
export type DomainRow = {
  id: string;
  user_id: string | null;
  name: string;
  display_name: string | null;
  domain: string;
  zone_name: string;
  status: string;
  origin_shield_header_name: string | null;
  origin_shield_secret: string | null;
  routing_mode: string;
  activated_at: Date | null;
  activation_override: boolean;
  nameservers_checked_at: Date | null;
  nameservers_check_error: string | null;
  nameservers_verified_at: Date | null;
  created_at: Date;
  updated_at: Date;
  nameservers?: NameserverRow[];
};

function hostnamesOf(rows: NameserverRow[] | undefined, kind: NameserverRow['kind']): string[] {
  return (rows ?? []).filter((row) => row.kind === kind).map((row) => row.hostname).sort();
}

/** The API shape of a domain. The shield secret is write-only: only whether it is set is shown. */
export function serializeDomain(row: DomainRow) {
  return {
    id: row.id,
    user_id: row.user_id,
    name: row.name,
    display_name: row.display_name,
    domain: row.domain,
    zone_name: row.zone_name,
    status: row.status,
    origin_shield_header_name: row.origin_shield_header_name,
    origin_shield_secret_set: row.origin_shield_secret !== null,
    routing_mode: row.routing_mode,
    expected_nameservers: hostnamesOf(row.nameservers, 'expected'),
    observed_nameservers: hostnamesOf(row.nameservers, 'observed'),
    activated_at: unixSeconds(row.activated_at),
    activation_override: row.activation_override,
    nameservers_checked_at: unixSeconds(row.nameservers_checked_at),
    nameservers_check_error: row.nameservers_check_error,
    nameservers_verified_at: unixSeconds(row.nameservers_verified_at),
    created_at: unixSeconds(row.created_at),
    updated_at: unixSeconds(row.updated_at),
  };
}

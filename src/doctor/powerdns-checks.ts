// PowerDNS as `cdn doctor` sees it: the connection test of POST /api/v1/settings/test/powerdns
// (reachable, key, server id), then the zones: the sync state the core keeps (dnsHealth) and
// whether PowerDNS still holds every zone published to it.
import type { Config } from '../config/load.js';
import type { Db } from '../db/client.js';
import { dnsHealth } from '../publish/dns/dns-health.js';
import { ZONE_ACCOUNT } from '../publish/dns/dns-sync.js';
import { powerDnsClient, testPowerDns } from '../publish/dns/powerdns-connection.js';
import { checkLine, counted, someOf, type CheckResult } from './check-result.js';

function boundedConfig(config: Config, timeoutMs: number): Config {
  return { ...config, powerdnsTimeoutMs: Math.min(config.powerdnsTimeoutMs, timeoutMs) };
}

/** `powerdns`: the API answers at CDN_POWERDNS_API_URL, takes CDN_POWERDNS_API_KEY and knows CDN_POWERDNS_SERVER_ID. */
export async function powerdnsCheck(config: Config, timeoutMs: number): Promise<CheckResult> {
  if (!config.powerdnsApiUrl) return checkLine('powerdns', 'skip', 'CDN_POWERDNS_API_URL is not set: DNS publishing is off', 'set CDN_POWERDNS_API_URL and CDN_POWERDNS_API_KEY to publish zones (docs/dns-publishing.md)');
  const test = await testPowerDns(boundedConfig(config, timeoutMs));
  const url = config.powerdnsApiUrl;
  if (test.key_accepted && test.server_found) return checkLine('powerdns', 'ok', `reachable at ${url} (PowerDNS ${test.version ?? 'of unknown version'}, server id ${config.powerdnsServerId}, ${test.latency_ms} ms)`);
  if (!test.reachable) return checkLine('powerdns', 'fail', `no answer from ${url}: ${test.error}`, 'start PowerDNS, or fix CDN_POWERDNS_API_URL (PowerDNS needs api=yes and its webserver on that address)');
  if (test.key_accepted === false) return checkLine('powerdns', 'fail', `${url} refuses the key: ${test.error}`, 'check CDN_POWERDNS_API_KEY against the api-key setting of PowerDNS');
  if (test.server_found === false) return checkLine('powerdns', 'fail', `${url} has no server "${config.powerdnsServerId}": ${test.error}`, 'set CDN_POWERDNS_SERVER_ID to the id PowerDNS lists at /api/v1/servers (usually localhost)');
  return checkLine('powerdns', 'fail', `${url} answered an error: ${test.error}`, 'see the PowerDNS log');
}

// Zones the core recorded as published, and still in sync, that PowerDNS does not list under this service's account.
async function zonesMissingFromPowerDns(db: Db, config: Config, timeoutMs: number): Promise<string[]> {
  const listed = await powerDnsClient(boundedConfig(config, timeoutMs), 1)!.zones();
  const held = new Set(listed.filter((zone) => zone.account === ZONE_ACCOUNT).map((zone) => zone.name.toLowerCase().replace(/\.$/, '')));
  const published = await db.dnsZoneState.findMany({ where: { last_error: null, published_hash: { not: null } }, select: { zone_name: true } });
  return published.map((zone) => zone.zone_name).filter((name) => !held.has(name.toLowerCase()));
}

/** `dns-zones`: no zone failing to sync, none waiting, none missing from PowerDNS. */
export async function dnsZonesCheck(db: Db, config: Config, timeoutMs: number): Promise<CheckResult[]> {
  const health = await dnsHealth(db, config);
  const lines: CheckResult[] = [];
  if (health.failing) {
    const failing = await db.dnsZoneState.findMany({ where: { last_error: { not: null } }, select: { zone_name: true, last_error: true }, orderBy: { zone_name: 'asc' } });
    lines.push(checkLine('dns-zones', 'fail', `${health.failing} of ${counted(health.zones, 'zone')} failing to sync (${someOf(failing.map((zone) => `${zone.zone_name}: ${zone.last_error}`), 2)})`, 'fix what PowerDNS refuses (GET /api/v1/dns/sync-events lists each attempt)'));
  }
  const missing = await zonesMissingFromPowerDns(db, config, timeoutMs);
  if (missing.length) lines.push(checkLine('dns-zones', 'fail', `${counted(missing.length, 'published zone')} missing from PowerDNS (${someOf(missing)})`, 'the next full sync of a core with CDN_POWERDNS_API_URL writes them again (every CDN_SYNC_INTERVAL_SECONDS); check that one runs'));
  if (health.pending) lines.push(checkLine('dns-zones', 'warn', `${health.pending} of ${counted(health.zones, 'zone')} waiting to be published`, 'a core with CDN_POWERDNS_API_URL writes them within CDN_SYNC_INTERVAL_SECONDS; if they keep waiting, check that one runs'));
  if (lines.length === 0) lines.push(checkLine('dns-zones', 'ok', health.zones ? `${health.in_sync} of ${counted(health.zones, 'zone')} in sync with PowerDNS` : 'no domain yet, so no zone to publish'));
  return lines;
}

// The PowerDNS client of this core's configuration, and the connection test of
// POST /api/v1/settings/test/powerdns.
import type { Config } from '../../config/load.js';
import { PowerDnsClient, PowerDnsError } from './powerdns-client.js';

/** The client for CDN_POWERDNS_*, or undefined when CDN_POWERDNS_API_URL is unset (publishing off). */
export function powerDnsClient(config: Config, maxAttempts = config.powerdnsMaxAttempts): PowerDnsClient | undefined {
  if (!config.powerdnsApiUrl) return undefined;
  return new PowerDnsClient({ url: config.powerdnsApiUrl, apiKey: config.powerdnsApiKey ?? '', serverId: config.powerdnsServerId, timeoutMs: config.powerdnsTimeoutMs, maxAttempts });
}

export type PowerDnsTest = {
  configured: boolean;
  api_url: string | null;
  server_id: string;
  reachable: boolean;
  key_accepted: boolean | null;
  server_found: boolean | null;
  version: string | null;
  daemon_type: string | null;
  latency_ms: number | null;
  error: string | null;
};

/** One unretried call to the server's description: reachability, whether the key is accepted, the version. */
export async function testPowerDns(config: Config): Promise<PowerDnsTest> {
  const base: PowerDnsTest = { configured: false, api_url: config.powerdnsApiUrl || null, server_id: config.powerdnsServerId, reachable: false, key_accepted: null, server_found: null, version: null, daemon_type: null, latency_ms: null, error: null };
  const client = powerDnsClient(config, 1);
  if (!client) return { ...base, error: 'CDN_POWERDNS_API_URL is not set: DNS publishing is off' };
  const started = Date.now();
  try {
    const server = await client.server();
    return { ...base, configured: true, reachable: true, key_accepted: true, server_found: true, version: server.version ?? null, daemon_type: server.daemon_type ?? null, latency_ms: Date.now() - started };
  } catch (error) {
    const status = error instanceof PowerDnsError ? error.status : null;
    const refused = status === 401 || status === 403;
    // 404: the key passed, but the server id is not this server's.
    const keyAccepted = refused ? false : status === 404 ? true : null;
    return {
      ...base,
      configured: true,
      reachable: status !== null,
      key_accepted: keyAccepted,
      server_found: status === 404 ? false : null,
      latency_ms: status !== null ? Date.now() - started : null,
      error: (error as Error).message,
    };
  }
}

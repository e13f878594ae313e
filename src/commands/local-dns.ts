import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Config } from '../config/load.js';
import { PowerDnsProcess, powerDnsMissing } from './powerdns-process.js';

/** The DNS part of the local stack: a PowerDNS the core publishes to, one configured elsewhere, or none (and why). */
export type LocalDns =
  | { kind: 'started'; env: Record<string, string>; dnsPort: number; stop(): Promise<void> }
  | { kind: 'external'; env: Record<string, string> }
  | { kind: 'off'; reason: string };

/**
 * Starts PowerDNS for `cdn local` under CDN_DATA_DIR/pdns (its zones survive
 * restarts) on CDN_LOCAL_DNS_PORT, its API on CDN_LOCAL_POWERDNS_API_PORT with a
 * key kept beside the database: unless CDN_POWERDNS_API_URL already names one,
 * and only when pdns_server is installed (publishing is off otherwise).
 */
export async function startLocalDns(config: Config, secret: (name: string, make: () => string) => Promise<string>, onExit: (code: number | null) => void): Promise<LocalDns> {
  if (config.powerdnsApiUrl) return { kind: 'external', env: {} };
  const missing = powerDnsMissing();
  if (missing) return { kind: 'off', reason: missing };
  const apiKey = await secret('local-powerdns-key', () => randomBytes(24).toString('base64url'));
  const server = await PowerDnsProcess.prepare({ dir: path.resolve(config.dataDir, 'pdns'), dnsPort: config.localDnsPort, apiPort: config.localPowerdnsApiPort, apiKey, bind: config.bind });
  await server.start(onExit);
  process.once('exit', () => void server.stop());
  return { kind: 'started', env: { CDN_POWERDNS_API_URL: server.apiUrl, CDN_POWERDNS_API_KEY: apiKey }, dnsPort: config.localDnsPort, stop: () => server.stop() };
}

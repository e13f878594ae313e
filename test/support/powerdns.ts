import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PowerDnsProcess } from '../../src/commands/powerdns-process.js';
import { freePort } from './cluster.js';
import { writeMmdb } from './mmdb-writer.js';

export { powerDnsMissing } from '../../src/commands/powerdns-process.js';

const run = promisify(execFile);

/**
 * A real PowerDNS Authoritative server of a suite's own (src/commands/powerdns-process.ts)
 * in a temporary folder on free loopback ports. `pause` and `resume` stop and start it
 * on the same folder (its zones survive); `stop` also deletes the folder.
 */
export class PowerDnsServer {
  private constructor(
    private readonly process: PowerDnsProcess,
    readonly dir: string,
  ) {}

  /**
   * `locations`: CIDR → [country, continent], written as the GeoIP2-layout database of the geoip backend.
   * `productionCaches`: PowerDNS's own cache defaults instead of caches off (PowerDnsProcessOptions).
   */
  static async start(locations: Record<string, [string, string]> = {}, options: { productionCaches?: boolean } = {}): Promise<PowerDnsServer> {
    const dir = await mkdtemp(path.join(tmpdir(), 'cdn-pdns-'));
    const geoipDatabase = path.join(dir, 'countries.mmdb');
    const entries = Object.fromEntries(Object.entries(locations).map(([cidr, [country, continent]]) => [cidr, { country: { iso_code: country }, continent: { code: continent } }]));
    await writeFile(geoipDatabase, writeMmdb(entries, 'GeoIP2-Country'));
    const process = await PowerDnsProcess.prepare({ dir, dnsPort: await freePort(), apiPort: await freePort(), apiKey: randomBytes(16).toString('hex'), geoipDatabase, cachesOff: !options.productionCaches });
    const server = new PowerDnsServer(process, dir);
    await server.resume();
    return server;
  }

  get apiUrl(): string {
    return this.process.apiUrl;
  }

  get dnsPort(): number {
    return this.process.options.dnsPort;
  }

  get apiKey(): string {
    return this.process.options.apiKey;
  }

  /** The environment a core publishing to this server needs. */
  get env(): Record<string, string> {
    return { CDN_POWERDNS_API_URL: this.apiUrl, CDN_POWERDNS_API_KEY: this.apiKey };
  }

  /** The A (or other) answers of `name` for a client in `subnet` (EDNS Client Subnet, sent by dig), sorted. */
  async answersFrom(subnet: string, name: string, type = 'A'): Promise<string[]> {
    const { stdout } = await run('dig', [`@127.0.0.1`, '-p', String(this.dnsPort), '+short', '+tries=1', '+time=2', `+subnet=${subnet}`, name, type]);
    return stdout.split('\n').filter(Boolean).sort();
  }

  /** A resolver that asks this server only. */
  resolver(): Resolver {
    const resolver = new Resolver({ timeout: 2000, tries: 1 });
    resolver.setServers([`127.0.0.1:${this.dnsPort}`]);
    return resolver;
  }

  resume(): Promise<void> {
    return this.process.start();
  }

  pause(): Promise<void> {
    return this.process.stop();
  }

  /** A call to this server's API, for tests that look behind the control plane's back. */
  async api(method: string, apiPath: string, body?: unknown): Promise<{ status: number; json: any }> {
    const response = await fetch(`${this.apiUrl}/api/v1/servers/localhost${apiPath}`, {
      method,
      headers: { 'x-api-key': this.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, json: text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
  }

  async stop(): Promise<void> {
    await this.pause();
    await rm(this.dir, { recursive: true, force: true });
  }
}

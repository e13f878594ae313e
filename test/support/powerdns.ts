import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './cluster.js';

const SCHEMA = '/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql';
const START_TIMEOUT_MS = 15000;

/** Why a real PowerDNS cannot run here, or undefined when it can (Debian: pdns-server, pdns-backend-sqlite3, sqlite3). */
export function powerDnsMissing(): string | undefined {
  if (spawnSync('pdns_server', ['--version']).error) return 'pdns_server is not installed (apt-get install pdns-server pdns-backend-sqlite3)';
  if (spawnSync('sqlite3', ['-version']).error) return 'sqlite3 is not installed (apt-get install sqlite3)';
  return undefined;
}

/**
 * A real PowerDNS Authoritative server of a suite's own: sqlite3 backend in a
 * temporary folder, DNS and its HTTP API on free loopback ports, LUA records on.
 * `stop` kills it (`start` again on the same folder brings the same zones back).
 */
export class PowerDnsServer {
  readonly apiKey = randomBytes(16).toString('hex');
  private child: ChildProcess | undefined;

  private constructor(
    readonly dir: string,
    readonly dnsPort: number,
    readonly apiPort: number,
  ) {}

  static async start(): Promise<PowerDnsServer> {
    const dir = await mkdtemp(path.join(tmpdir(), 'cdn-pdns-'));
    const database = path.join(dir, 'pdns.sqlite3');
    const created = spawnSync('sqlite3', [database], { input: await readFile(SCHEMA) });
    if (created.status !== 0) throw new Error(`sqlite3 could not create the PowerDNS schema: ${created.stderr}`);
    const server = new PowerDnsServer(dir, await freePort(), await freePort());
    await writeFile(
      path.join(dir, 'pdns.conf'),
      [
        'launch=gsqlite3',
        `gsqlite3-database=${database}`,
        'local-address=127.0.0.1',
        `local-port=${server.dnsPort}`,
        'api=yes',
        `api-key=${server.apiKey}`,
        'webserver=yes',
        'webserver-address=127.0.0.1',
        `webserver-port=${server.apiPort}`,
        'webserver-allow-from=127.0.0.0/8',
        `socket-dir=${dir}`,
        'enable-lua-records=yes',
        'zone-cache-refresh-interval=0',
        'query-cache-ttl=0',
        'negquery-cache-ttl=0',
        'cache-ttl=0',
        '',
      ].join('\n'),
    );
    await server.resume();
    return server;
  }

  get apiUrl(): string {
    return `http://127.0.0.1:${this.apiPort}`;
  }

  /** The environment a core publishing to this server needs. */
  get env(): Record<string, string> {
    return { CDN_POWERDNS_API_URL: this.apiUrl, CDN_POWERDNS_API_KEY: this.apiKey };
  }

  /** A resolver that asks this server only. */
  resolver(): Resolver {
    const resolver = new Resolver({ timeout: 2000, tries: 1 });
    resolver.setServers([`127.0.0.1:${this.dnsPort}`]);
    return resolver;
  }

  /** Starts (again) the server on its folder and waits for its API. */
  async resume(): Promise<void> {
    const child = spawn('pdns_server', [`--config-dir=${this.dir}`, '--daemon=no', '--guardian=no', '--disable-syslog', '--write-pid=no'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    child.stderr!.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
    this.child = child;
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`pdns_server exited with ${child.exitCode}:\n${log}`);
      const answer = await fetch(`${this.apiUrl}/api/v1/servers/localhost`, { headers: { 'x-api-key': this.apiKey } }).catch(() => undefined);
      if (answer?.ok) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    child.kill('SIGKILL');
    throw new Error(`pdns_server did not answer within ${START_TIMEOUT_MS} ms:\n${log}`);
  }

  /** Stops the server (its zones stay in its folder). */
  async pause(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
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

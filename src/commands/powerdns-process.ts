// A PowerDNS Authoritative server run as a child process, for the local stack
// (`cdn local`) and the tests: the sqlite3 backend in a folder of its own, DNS and
// its HTTP API on loopback ports, LUA records on, no caches (answers change with
// every sync). Needs Debian's pdns-server, pdns-backend-sqlite3 and sqlite3.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

const SCHEMA = '/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql';
const GEOIP_BACKEND = '/usr/lib/x86_64-linux-gnu/pdns/libgeoipbackend.so';
const START_TIMEOUT_MS = 15000;
const STOP_GRACE_MS = 5000;
const INSTALL = 'apt-get install pdns-server pdns-backend-sqlite3 pdns-backend-geoip sqlite3';

/**
 * `geoipDatabase`: a country database in the MaxMind GeoIP2 layout (country.iso_code, continent.code),
 * which PowerDNS's geoip backend reads for the location functions of LUA records.
 */
/**
 * `cachesOff` (the default, for the local stack): PowerDNS's packet, query and negative caches
 * off, so every answer is read from the database at once. False: PowerDNS's own defaults, as a
 * production server runs (answers cached 20 s, negative ones 60 s).
 */
export type PowerDnsProcessOptions = { dir: string; dnsPort: number; apiPort: number; apiKey: string; bind?: string; geoipDatabase?: string; cachesOff?: boolean };

/** Why PowerDNS cannot run here, with the command that fixes it; undefined when it can. */
export function powerDnsMissing(): string | undefined {
  if (spawnSync('pdns_server', ['--version']).error) return `pdns_server is not installed (${INSTALL})`;
  if (spawnSync('sqlite3', ['-version']).error) return `sqlite3 is not installed (${INSTALL})`;
  if (!existsSync(SCHEMA)) return `the PowerDNS sqlite3 backend is not installed (${INSTALL})`;
  if (!existsSync(GEOIP_BACKEND)) return `the PowerDNS geoip backend is not installed (${INSTALL})`;
  return undefined;
}

// The geoip backend answers nothing itself (no zones of its own): it gives LUA records country() and continent().
function geoip(options: PowerDnsProcessOptions): string[] {
  if (!options.geoipDatabase) return ['launch=gsqlite3'];
  return ['launch=gsqlite3,geoip', `geoip-database-files=mmdb:${options.geoipDatabase}`, `geoip-zones-file=${path.join(options.dir, 'geoip-zones.yaml')}`];
}

function configuration(options: PowerDnsProcessOptions, database: string): string {
  const bind = options.bind ?? '127.0.0.1';
  return [
    ...geoip(options),
    'edns-subnet-processing=yes',
    `gsqlite3-database=${database}`,
    `local-address=${bind}`,
    `local-port=${options.dnsPort}`,
    'api=yes',
    `api-key=${options.apiKey}`,
    'webserver=yes',
    `webserver-address=${bind}`,
    `webserver-port=${options.apiPort}`,
    'webserver-allow-from=127.0.0.0/8,::1/128',
    `socket-dir=${options.dir}`,
    'enable-lua-records=yes',
    ...(options.cachesOff === false ? [] : ['zone-cache-refresh-interval=0', 'query-cache-ttl=0', 'negquery-cache-ttl=0', 'cache-ttl=0']),
    '',
  ].join('\n');
}

export class PowerDnsProcess {
  private child: ChildProcess | undefined;
  private log = '';

  private constructor(readonly options: PowerDnsProcessOptions) {}

  /** Creates the folder, its sqlite3 database (once: zones survive restarts) and pdns.conf. */
  static async prepare(options: PowerDnsProcessOptions): Promise<PowerDnsProcess> {
    await mkdir(options.dir, { recursive: true });
    const database = path.join(options.dir, 'pdns.sqlite3');
    if (!existsSync(database)) {
      const created = spawnSync('sqlite3', [database], { input: await readFile(SCHEMA) });
      if (created.status !== 0) throw new Error(`sqlite3 could not create the PowerDNS database: ${created.stderr}`);
    }
    if (options.geoipDatabase) await writeFile(path.join(options.dir, 'geoip-zones.yaml'), 'domains: []\n');
    await writeFile(path.join(options.dir, 'pdns.conf'), configuration(options, database));
    return new PowerDnsProcess(options);
  }

  get apiUrl(): string {
    return `http://${this.options.bind ?? '127.0.0.1'}:${this.options.apiPort}`;
  }

  /** Starts pdns_server and resolves once its API answers with the key; `onExit` hears of an exit not asked for. */
  async start(onExit?: (code: number | null) => void): Promise<void> {
    const child = spawn('pdns_server', [`--config-dir=${this.options.dir}`, '--daemon=no', '--guardian=no', '--disable-syslog', '--write-pid=no'], { stdio: ['ignore', 'ignore', 'pipe'] });
    this.log = '';
    child.stderr!.on('data', (chunk: Buffer) => (this.log = (this.log + chunk.toString()).slice(-4000)));
    child.once('exit', (code) => {
      if (this.child === child) {
        this.child = undefined;
        onExit?.(code);
      }
    });
    this.child = child;
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`pdns_server exited with ${child.exitCode}:\n${this.log}`);
      const answer = await fetch(`${this.apiUrl}/api/v1/servers/localhost`, { headers: { 'x-api-key': this.options.apiKey } }).catch(() => undefined);
      if (answer?.ok) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await this.stop();
    throw new Error(`pdns_server did not answer on ${this.apiUrl} within ${START_TIMEOUT_MS} ms:\n${this.log}`);
  }

  /** Stops the server (SIGTERM, then SIGKILL after 5 s); its zones stay in its folder. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const force = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(force);
  }
}

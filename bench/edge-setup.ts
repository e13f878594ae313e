// What `npm run bench:edge` and `npm run bench:tls` share: the origin, the 1,000 domains loaded
// straight into the core's database, publishing, and reading the edge's processes from /proc.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import http from 'node:http';
import pg from 'pg';

export const DOMAINS = 1000;
const BODY_BYTES = 2048;

/** The origin: its own process, 2 KB answers; /hit/* cacheable for an hour, /miss/* never. Resolves once it listens. */
export async function startOrigin(port: number): Promise<ChildProcess> {
  const source = `
    const http = require('node:http');
    const body = Buffer.alloc(${BODY_BYTES}, 'x');
    http.createServer((req, res) => {
      const cacheable = req.url.startsWith('/hit/');
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length, 'cache-control': cacheable ? 'max-age=3600' : 'no-store' });
      res.end(body);
    }).listen(${port}, '127.0.0.1', () => process.send('listening'));`;
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise((resolve) => child.once('message', resolve));
  return child;
}

/** The node binary the servers under test run on: BENCH_EDGE_RUNTIME, else this process's. */
export function serverRuntime(): string {
  return process.env.BENCH_EDGE_RUNTIME || process.execPath;
}

/** The version of serverRuntime(), with its OpenSSL. */
export function runtimeVersion(): string {
  return execFileSync(serverRuntime(), ['-p', 'process.version + " OpenSSL " + process.versions.openssl'], { encoding: 'utf8' }).trim();
}

/** A bare node:http reference of bench/bare-node.mjs (`cache`, `proxy`, or `tls-cache` with a folder of certificates), resolved once its workers listen. */
export async function startBareNode(mode: 'cache' | 'proxy' | 'undici-proxy' | 'tls-cache', port: number, originPort: number, certificates?: string): Promise<ChildProcess> {
  const script = new URL('./bare-node.mjs', import.meta.url).pathname;
  const child = spawn(serverRuntime(), [script, mode, String(port), String(originPort), ...(certificates ? [certificates] : [])], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise((resolve) => child.once('message', resolve));
  return child;
}

export function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs = 60000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const tick = async () => {
      if (await probe().catch(() => false)) return resolve();
      if (Date.now() > deadline) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(tick, 200);
    };
    void tick();
  });
}

export function get(port: number, host: string, pathname: string, agent?: http.Agent): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path: pathname, headers: { host }, agent: agent ?? false }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, headers: response.headers }));
    });
    request.on('error', reject);
  });
}

/** `bench1.example`…`bench1000.example`: active, each with proxied www and apex records and one http origin on `originPort`. Answers the domain ids by name. */
export async function loadDomains(url: string, originPort: number): Promise<Map<string, string>> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  await pool.query(
    // Checked just now: the core's scheduled delegation check (every minute, 100 domains at a time)
    // would otherwise find these made-up domains undelegated during the run and withdraw them from
    // the edge's config, which the swap phase then counted as failed requests.
    `INSERT INTO domains (domain, name, zone_name, status, nameservers_checked_at, updated_at)
     SELECT 'bench' || n || '.example', 'bench' || n || '.example', 'bench' || n || '.example', 'active', now(), now() FROM generate_series(1, $1) n`,
    [DOMAINS],
  );
  await pool.query(`INSERT INTO dns_records (domain_id, type, name, content, content_digest, proxied, updated_at) SELECT d.id, 'A', r.name, '192.0.2.1', encode(sha256(convert_to(r.name, 'UTF8')), 'hex'), true, now() FROM domains d, (VALUES ('www'), ('@')) r(name)`);
  await pool.query(`INSERT INTO origins (domain_id, host, scheme, port, updated_at) SELECT d.id, '127.0.0.1', 'http', $1, now() FROM domains d`, [originPort]);
  const rows = await pool.query<{ id: string; domain: string }>(`SELECT id, domain FROM domains`);
  await pool.end();
  return new Map(rows.rows.map((row) => [row.domain, row.id]));
}

export async function publish(base: string): Promise<number> {
  const response = await fetch(`${base}/api/v1/config/snapshots/rebuild`, { method: 'POST' });
  return ((await response.json()) as { data: { version: number } }).data.version;
}

export async function edgeVersion(port: number): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}/ready`);
  return response.status === 200 ? ((await response.json()) as { config: { version: number } }).config.version : -1;
}

/** The pids whose parent is `parent` and whose command line includes `command` (the edge's workers: `cdn.js`, not tsx's helpers; nginx's: `worker process`). */
export async function childPids(parent: number, command: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const commandLine = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent && commandLine.includes(command)) pids.push(Number(entry));
  }
  return pids;
}

/** CPU seconds (user + system) the processes `pids` have used so far, from /proc/<pid>/stat (clock ticks of 1/100 s). */
export async function cpuSeconds(pids: number[]): Promise<number> {
  let ticks = 0;
  for (const pid of pids) {
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / 100;
}

// The machine's busy and total CPU ticks so far (/proc/stat's first line); steal is neither (another guest's time).
async function machineTicks(): Promise<{ busy: number; total: number }> {
  const [user, nice, system, idle, iowait, irq, softirq] = (await readFile('/proc/stat', 'utf8')).split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const busy = user + nice + system + irq + softirq;
  return { busy, total: busy + idle + iowait };
}

/**
 * Waits until the machine has been quiet (under `share` of its CPUs busy, steal aside) for `seconds` seconds
 * in a row, or `maxSeconds` have passed; answers the seconds waited. Start-up work of the processes under
 * test (a core's memory reducer after a publish, PostgreSQL's autovacuum after bulk inserts) then stays out
 * of a latency measurement.
 */
export async function waitForQuiet(share = 0.1, seconds = 3, maxSeconds = 60): Promise<number> {
  const started = Date.now();
  let quiet = 0;
  let last = await machineTicks();
  while (quiet < seconds && Date.now() - started < maxSeconds * 1000) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = await machineTicks();
    const busy = (now.busy - last.busy) / Math.max(1, now.total - last.total);
    quiet = busy < share ? quiet + 1 : 0;
    last = now;
  }
  return (Date.now() - started) / 1000;
}

export async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

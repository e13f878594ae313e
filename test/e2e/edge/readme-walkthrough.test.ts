import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { request } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { freePorts } from '../../support/cluster.js';
import { createTestDatabase, dropTestDatabase } from '../../support/database.js';
import { eventually } from '../../support/eventually.js';
import { pebbleMissing } from '../../support/pebble.js';

const run = promisify(execFile);

type Ports = { core: number; edge: number; edgeTls: number; edgeMetrics: number; origin: number; dns: number; dnsApi: number; acme: number; acmeManagement: number };

/** A walk-through block of the README (after its `<!-- marker`), with the documented ports replaced by free ones. */
async function walkthrough(marker: string, ports: Ports, dataDir: string): Promise<string> {
  const readme = await readFile('README.md', 'utf8');
  const start = readme.indexOf('```sh', readme.indexOf(`<!-- ${marker}:`));
  const block = readme.slice(readme.indexOf('\n', start) + 1, readme.indexOf('```', start + 5));
  return block
    .replaceAll('127.0.0.1:8080', `127.0.0.1:${ports.core}`)
    .replaceAll('127.0.0.1:8081', `127.0.0.1:${ports.edge}`)
    .replaceAll('9000', String(ports.origin))
    .replaceAll(':8443', `:${ports.edgeTls}`)
    .replaceAll('.data/', `${dataDir}/`)
    .replaceAll('-p 5300', `-p ${ports.dns}`);
}

// The id of a domain the walk-through made (its shell variable $DOMAIN, for the blocks that follow in the same terminal).
async function domainId(api: string, name: string): Promise<string> {
  const answer = (await (await fetch(`${api}/domains?limit=100`)).json()) as { data: { id: string; domain: string }[] };
  const domain = answer.data.find((row) => row.domain === name);
  if (!domain) throw new Error(`no domain ${name}`);
  return domain.id;
}

// An HTTPS request to the local edge, trusting only `ca`: whether the chain verified, the answer and the names served.
function httpsGet(port: number, servername: string, ca: string): Promise<{ authorized: boolean; subjectAltName: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, servername, path: '/', headers: { host: servername }, ca, agent: false }, (res) => {
      const socket = res.socket as TLSSocket;
      res.resume();
      res.on('end', () => resolve({ authorized: socket.authorized, subjectAltName: socket.getPeerCertificate().subjectaltname ?? '' }));
    });
    req.on('error', reject);
    req.end();
  });
}

// `npm start` (= `cdn local`) runs the core and one edge; the README shows a newcomer the whole path.
describe('the README walk-through: npm start, one site, a MISS then a HIT through the edge, then HTTPS', function () {
  this.timeout(120000);
  let local: ChildProcess;
  let output = '';
  let dataDir: string;
  let databaseUrl: string | undefined;

  async function startLocal(): Promise<void> {
    output = '';
    local = spawn(process.execPath, ['bin/cdn.js', 'local'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, CDN_DATA_DIR: dataDir, CDN_CORE_PORT: String(ports.core), CDN_EDGE_HTTP_PORT: String(ports.edge), CDN_EDGE_HTTPS_PORT: String(ports.edgeTls), CDN_EDGE_METRICS_PORT: String(ports.edgeMetrics), CDN_EDGE_WORKERS: '1', CDN_LOCAL_DNS_PORT: String(ports.dns), CDN_LOCAL_POWERDNS_API_PORT: String(ports.dnsApi), CDN_LOCAL_ACME_PORT: String(ports.acme), CDN_LOCAL_ACME_MANAGEMENT_PORT: String(ports.acmeManagement), CDN_LOG_LEVEL: 'warn', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    local.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    local.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 60000;
    while (!output.includes('CDN core ready')) {
      if (local.exitCode !== null || Date.now() > deadline) throw new Error(`cdn local did not start:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  async function stopLocal(): Promise<void> {
    if (local && local.exitCode === null) {
      const exited = new Promise((resolve) => local.once('exit', resolve));
      local.kill('SIGINT');
      await exited;
    }
  }

  after(async () => {
    await stopLocal();
    if (databaseUrl) await dropTestDatabase(databaseUrl);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  let ports: Ports;

  it('serves the origin through the edge and caches it', async () => {
    // Nine different ports: picked one at a time, a port closed after its pick could be picked again.
    const [core, edge, edgeTls, edgeMetrics, origin, dns, dnsApi, acme, acmeManagement] = await freePorts(9);
    ports = { core, edge, edgeTls, edgeMetrics, origin, dns, dnsApi, acme, acmeManagement };
    dataDir = await mkdtemp(path.join(tmpdir(), 'cdn-local-'));
    databaseUrl = process.env.DATABASE_URL ? await createTestDatabase() : undefined;
    await startLocal();
    const script = await walkthrough('walkthrough', ports, dataDir);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { timeout: 60000 });
    const answers = stdout.split(/\r?\n(?=HTTP\/1\.1 )/);
    expect(answers, stdout).to.have.length(2);
    expect(answers[0]).to.match(/^HTTP\/1\.1 200/).and.to.match(/x-cache: MISS/i).and.to.contain('hello from the origin');
    expect(answers[1]).to.match(/^HTTP\/1\.1 200/).and.to.match(/x-cache: HIT/i).and.to.contain('hello from the origin');
  });

  it('answers the site from the local PowerDNS with dig', async () => {
    expect(output).to.include(`DNS (PowerDNS) answering on 127.0.0.1 port ${ports.dns}`);
    const script = await walkthrough('dns walkthrough', ports, dataDir);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { timeout: 60000 });
    const [address, ...nameservers] = stdout.trim().split('\n');
    expect(address).to.equal('127.0.0.1');
    expect(nameservers.sort()).to.deep.equal(['ns1.cdn.localhost.', 'ns2.cdn.localhost.']);
  });

  it('serves the site over HTTPS with a certificate from the local pebble, verified against its root', async function () {
    const missing = pebbleMissing();
    if (missing) {
      console.log(`    skipped: ${missing}`);
      this.skip();
    }
    const rootFile = path.join(dataDir, 'local-acme-root.pem');
    expect(output).to.include(`curl --cacert ${rootFile} --resolve www.example.com:${ports.edgeTls}:127.0.0.1 https://www.example.com:${ports.edgeTls}/`);
    const script = await walkthrough('https walkthrough', ports, dataDir);
    const api = `http://127.0.0.1:${ports.core}/api/v1`;
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { timeout: 100000, env: { ...process.env, API: api, DOMAIN: await domainId(api, 'example.com') } }).catch((error: Error) => {
      throw new Error(`${error.message}\ncdn local said:\n${output.slice(-3000)}`);
    });
    expect(stdout).to.match(/^HTTP\/1\.1 200/).and.to.contain('hello from the origin');
    const answer = await httpsGet(ports.edgeTls, 'www.example.com', await readFile(rootFile, 'utf8'));
    expect(answer.authorized, 'the chain verifies against pebble\'s root').to.equal(true);
    expect(answer.subjectAltName).to.equal('DNS:www.example.com');
  });

  // pebble forgets everything when it stops: its root, the account, the certificates it issued.
  it('after a restart, still verifies the earlier certificate and issues the apex and wildcard by DNS-01 from the new pebble', async function () {
    this.timeout(180000);
    if (pebbleMissing()) this.skip();
    await stopLocal();
    await startLocal();
    const rootFile = path.join(dataDir, 'local-acme-root.pem');
    const roots = await readFile(rootFile, 'utf8');
    expect(roots.match(/BEGIN CERTIFICATE/g), 'this start\'s root and the earlier one').to.have.length(2);
    const earlier = await eventually('www over HTTPS after the restart', () => httpsGet(ports.edgeTls, 'www.example.com', roots).catch(() => undefined), 30000);
    expect(earlier.subjectAltName).to.equal('DNS:www.example.com');
    const api = `http://127.0.0.1:${ports.core}/api/v1`;
    const domain = await domainId(api, 'example.com');
    const requested = await fetch(`${api}/domains/${domain}/ssl/request`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ hostnames: ['example.com', '*.example.com'] }) });
    const job = ((await requested.json()) as { data: { id: string } }).data;
    const finished = await eventually(
      'the apex and wildcard job finished',
      async () => {
        const status = (await (await fetch(`${api}/domains/${domain}/ssl/acme-status`)).json()) as { data: { jobs: { id: string; status: string; challenge: string | null; last_error: string | null }[] } };
        const row = status.data.jobs.find((candidate) => candidate.id === job.id);
        return row && ['succeeded', 'failed'].includes(row.status) ? row : undefined;
      },
      120000,
    );
    expect([finished.status, finished.last_error], output.slice(-3000)).to.deep.equal(['succeeded', null]);
    const wildcard = await eventually('the wildcard served', async () => {
      const answer = await httpsGet(ports.edgeTls, 'api.example.com', roots).catch(() => undefined);
      return answer?.subjectAltName.includes('DNS:*.example.com') ? answer : undefined;
    });
    expect(wildcard.authorized).to.equal(true);
  });
});

import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { readMigrations } from '../../src/db/migrator.js';
import { CHECK_NAMES } from '../../src/doctor/doctor.js';
import type { CheckResult } from '../../src/doctor/check-result.js';
import { createEdgeToken } from '../../src/features/edges/tokens.js';
import { CDN_BIN, runProcess, type CliResult } from '../support/cdn-cli.js';
import { freePort } from '../support/cluster.js';
import { TestCore } from '../support/core.js';
import { EdgeProcess } from '../support/edge-process.js';
import { eventually } from '../support/eventually.js';
import { GitopsRepo } from '../support/gitops-repo.js';
import { Pebble, pebbleMissing } from '../support/pebble.js';
import { PowerDnsServer, powerDnsMissing } from '../support/powerdns.js';

const DOMAIN = 'doctor.example';
const DOMAIN_FILE = `domain: ${DOMAIN}\nrecords:\n  - { type: A, name: "@", content: 192.0.2.10 }\n`;

// `cdn doctor` as an operator runs it: its own process, with only the environment given (nothing of the test runner's).
function doctor(env: Record<string, string>, args: string[] = ['--json']): Promise<CliResult> {
  return runProcess(process.execPath, [CDN_BIN, 'doctor', ...args], { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } });
}

async function doctorJson(env: Record<string, string>): Promise<{ code: number; results: CheckResult[] }> {
  const run = await doctor(env);
  expect(run.stderr, run.stderr).to.equal('');
  return { code: run.code, results: JSON.parse(run.stdout) as CheckResult[] };
}

const withStatus = (results: CheckResult[], status: string) => results.filter((result) => result.status === status);

describe('cdn doctor on the environment alone', () => {
  it('names every badly set variable, not only the first, fails, and skips the checks that need the configuration', async () => {
    const { code, results } = await doctorJson({ CDN_SYNC_INTERVAL_SECONDS: 'abc', CDN_CORE_PORT: '70000' });
    expect(code).to.equal(1);
    expect(withStatus(results, 'fail').map((result) => result.message)).to.deep.equal(['CDN_CORE_PORT=70000 is out of range (0 to 65535)', 'CDN_SYNC_INTERVAL_SECONDS="abc" is not an integer']);
    expect(results.filter((result) => result.check !== 'config').map((result) => `${result.status} ${result.check}`)).to.deep.equal(CHECK_NAMES.slice(1).map((check) => `skip ${check}`));
  });

  it('warns of a CDN_ variable nothing reads (a typo) without failing for it', async () => {
    const { results } = await doctorJson({ CDN_POWERDNS_APIKEY: 'x' });
    expect(results.filter((result) => result.check === 'config').map((result) => `${result.status} ${result.message}`)).to.deep.equal(['warn CDN_POWERDNS_APIKEY is set but read by nothing']);
  });

  it('fails production-unsafe settings and missing secrets with CDN_ENV=production, naming each variable', async () => {
    const { code, results } = await doctorJson({ CDN_ENV: 'production', CDN_BOOTSTRAP_EDGE_TOKEN: 'cdnedge_doctor-bootstrap-0123456789' });
    expect(code).to.equal(1);
    const failed = withStatus(results, 'fail').map((result) => `${result.check} ${result.message.split(' ')[0]}`);
    expect(failed).to.deep.equal(['defaults DATABASE_URL', 'defaults CDN_API_TOKEN', 'defaults CDN_BOOTSTRAP_EDGE_TOKEN', 'secrets CDN_SSL_SECRET_KEY', 'secrets cdn']);
    expect(withStatus(results, 'fail').at(-1)!.message).to.equal('cdn edge refuses to start: CDN_EDGE_CLEARANCE_SECRET must be set in production (the same value on every edge)');
  });

  it('bounds each check by --timeout: PowerDNS and an ACME directory that accept connections and never answer fail within it', async () => {
    const silent = net.createServer(() => undefined).listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const port = (silent.address() as net.AddressInfo).port;
    try {
      const started = Date.now();
      const run = await doctor({ CDN_POWERDNS_API_URL: `http://127.0.0.1:${port}`, CDN_POWERDNS_API_KEY: 'key', CDN_SSL_ACME_DIRECTORY_URL: `https://127.0.0.1:${port}/dir` }, ['--json', '--timeout', '1']);
      const failed = withStatus(JSON.parse(run.stdout) as CheckResult[], 'fail').map((result) => `${result.check} ${result.message}`);
      expect(failed).to.deep.equal([`powerdns no answer from http://127.0.0.1:${port}: GET /: no answer within 1000 ms`, `acme no directory at https://127.0.0.1:${port}/dir: no answer within 1000 ms`]);
      expect(Date.now() - started).to.be.below(8000);
    } finally {
      silent.close();
    }
  });

  it('only warns of the same settings in development, and exits 0', async () => {
    const { code, results } = await doctorJson({});
    expect(code).to.equal(0);
    expect(withStatus(results, 'fail')).to.deep.equal([]);
    expect(withStatus(results, 'warn').map((result) => result.message.split(' ')[0])).to.include.members(['CDN_ENV', 'DATABASE_URL', 'CDN_API_TOKEN', 'CDN_SSL_SECRET_KEY', 'CDN_EDGE_CLEARANCE_SECRET', 'CDN_CLIENT_IP_HASH_KEY']);
  });
});

// A healthy local stack: a real core (production profile, every secret set, publisher on, its GitOps
// controller on a file:// repository) on a fresh database, a real PowerDNS it publishes to, a real
// pebble as the ACME directory, and a real `cdn edge`. Each broken case breaks one thing of it.
describe('cdn doctor against a local stack', function () {
  this.timeout(120000);
  let core: TestCore;
  let powerdns: PowerDnsServer;
  let pebble: Pebble;
  let repo: GitopsRepo;
  let edge: EdgeProcess;
  let dataDir: string;
  let env: Record<string, string>;

  before(async function () {
    const missing = powerDnsMissing() ?? pebbleMissing();
    if (missing) return this.skip();
    powerdns = await PowerDnsServer.start();
    pebble = await Pebble.start({ httpPort: await freePort(), dnsServer: `127.0.0.1:${powerdns.dnsPort}` });
    repo = await GitopsRepo.create({ [`domains/${DOMAIN}.yaml`]: DOMAIN_FILE });
    dataDir = await mkdtemp(path.join(tmpdir(), 'cdn-doctor-'));
    const stackEnv = {
      CDN_ENV: 'production',
      CDN_API_TOKEN: randomBytes(24).toString('hex'),
      CDN_SSL_SECRET_KEY: randomBytes(32).toString('base64'),
      CDN_EDGE_CLEARANCE_SECRET: randomBytes(32).toString('base64'),
      CDN_CLIENT_IP_HASH_KEY: randomBytes(32).toString('hex'),
      CDN_DEFAULT_NAMESERVERS: 'ns1.doctor.example.net,ns2.doctor.example.net',
      CDN_RETENTION_PRUNE_ENABLED: 'true',
      CDN_PUBLISH_ENABLED: 'true',
      CDN_SYNC_INTERVAL_SECONDS: '1',
      CDN_GITOPS_REPO: repo.url,
      CDN_GITOPS_INTERVAL_SECONDS: '1',
      CDN_SSL_ACME_DIRECTORY_URL: pebble.directoryUrl,
      CDN_SSL_ACME_CA_FILE: pebble.tlsCaFile,
      CDN_DATA_DIR: dataDir,
      ...powerdns.env,
    };
    core = await TestCore.start(stackEnv);
    core.token = stackEnv.CDN_API_TOKEN;
    env = { ...stackEnv, DATABASE_URL: core.databaseUrl, CDN_LOG_LEVEL: 'silent' };
    const { token } = await createEdgeToken(core.db, 'doctor');
    edge = await EdgeProcess.start({ coreUrl: core.url, token, edgeId: 'doctor-edge', workers: 1, env: { CDN_EDGE_CLEARANCE_SECRET: stackEnv.CDN_EDGE_CLEARANCE_SECRET } });
    await eventually('the repository applied', async () => (await core.db.gitopsRun.findFirst({ where: { repo: repo.url, status: 'applied' } })) ?? undefined);
    await eventually('the zone published', async () => ((await core.get(`/api/v1/overview`)).data.dns?.in_sync === 1 ? true : undefined));
    await eventually('the edge on the newest version, nothing left to publish', async () => {
      const [state, node] = await Promise.all([core.db.publishState.findUnique({ where: { id: 1 } }), core.db.edgeNode.findUnique({ where: { edge_id: 'doctor-edge' } })]);
      return state?.active_version && state.change_seq === state.published_seq && node?.config_version === state.active_version ? true : undefined;
    });
  });
  after(async () => {
    await edge?.stop();
    await core?.stop();
    await pebble?.stop();
    await powerdns?.stop();
    await repo?.remove();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('passes every check of a healthy stack and exits 0', async () => {
    const { code, results } = await doctorJson(env);
    expect(results.filter((result) => result.status !== 'ok'), JSON.stringify(results, null, 2)).to.deep.equal([]);
    expect(results.map((result) => result.check)).to.deep.equal([...CHECK_NAMES]);
    expect(code).to.equal(0);
  });

  it('prints one line per check, status first, and a count of each status', async () => {
    const run = await doctor(env, []);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.slice(0, -1).map((line) => line.split(/\s+/).slice(0, 2).join(' '))).to.deep.equal(CHECK_NAMES.map((check) => `ok ${check}`));
    expect(lines.find((line) => line.includes(' database '))).to.match(/^ok {4}database {5}reachable \(\d+ ms\), \d+ migrations applied, none pending$/);
    expect(lines.at(-1)).to.equal(`${CHECK_NAMES.length} ok, 0 warn, 0 FAIL, 0 skip`);
    expect(run.code).to.equal(0);
  });

  it('fails the powerdns check, naming the URL, when PowerDNS is stopped (nothing listens there)', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const { code, results } = await doctorJson({ ...env, CDN_POWERDNS_API_URL: url });
    expect(withStatus(results, 'fail').map((result) => result.check)).to.deep.equal(['powerdns']);
    expect(withStatus(results, 'fail')[0].message).to.match(new RegExp(`^no answer from ${url}: .*ECONNREFUSED`));
    expect(results.find((result) => result.check === 'dns-zones')!.status).to.equal('skip');
    expect(code).to.equal(1);
  });

  it('fails the powerdns check with what to do when PowerDNS refuses the key', async () => {
    const { code, results } = await doctorJson({ ...env, CDN_POWERDNS_API_KEY: 'not-the-key' });
    const [failure, ...others] = withStatus(results, 'fail');
    expect(others).to.deep.equal([]);
    expect(failure.check).to.equal('powerdns');
    expect(failure.message).to.match(new RegExp(`^${powerdns.apiUrl} refuses the key: .*401`));
    expect(failure.fix).to.equal('check CDN_POWERDNS_API_KEY against the api-key setting of PowerDNS');
    expect(code).to.equal(1);
  });

  it('fails the powerdns check when PowerDNS has no server of CDN_POWERDNS_SERVER_ID', async () => {
    const { code, results } = await doctorJson({ ...env, CDN_POWERDNS_SERVER_ID: 'elsewhere' });
    expect(withStatus(results, 'fail').map((result) => `${result.check} ${result.fix}`)).to.deep.equal(['powerdns set CDN_POWERDNS_SERVER_ID to the id PowerDNS lists at /api/v1/servers (usually localhost)']);
    expect(code).to.equal(1);
  });

  it('fails the gitops check when the repository does not answer, and still reports the runs recorded of the one before', async () => {
    const gone = `file://${path.join(dataDir, 'gone.git')}`;
    const { code, results } = await doctorJson({ ...env, CDN_GITOPS_REPO: gone });
    const [unreachable, noRun, before, ...more] = results.filter((result) => result.check === 'gitops');
    expect(more).to.deep.equal([]);
    expect(unreachable.status).to.equal('fail');
    expect(unreachable.message.startsWith(`git ls-remote ${gone} failed: `), unreachable.message).to.equal(true);
    expect(noRun).to.include({ status: 'warn', message: `no run of ${gone} is recorded yet` });
    expect(before.status).to.equal('ok');
    expect(before.message).to.match(new RegExp(`^${repo.url}: last run (applied|no_changes) at [0-9a-f]{12}$`));
    expect(withStatus(results, 'fail')).to.deep.equal([unreachable]);
    expect(code).to.equal(1);
  });

  it('fails the edges check naming a stale edge (an edge row with a heartbeat ten minutes old)', async () => {
    await core.db.edgeNode.create({ data: { edge_id: 'edge-gone', health_status: 'healthy', last_heartbeat_at: new Date(Date.now() - 600_000), config_version: 1 } });
    try {
      const { code, results } = await doctorJson(env);
      expect(withStatus(results, 'fail').map((result) => result.check)).to.deep.equal(['edges']);
      expect(withStatus(results, 'fail')[0].message).to.match(/^1 of 2 edges stale, out of the pool: edge-gone \(last heartbeat 60\d s ago\)$/);
      expect(code).to.equal(1);
    } finally {
      await core.db.edgeNode.delete({ where: { edge_id: 'edge-gone' } });
    }
  });

  it('fails the edges check naming a fresh edge that refused the newest version, with its reason', async () => {
    const active = (await core.db.publishState.findUnique({ where: { id: 1 } }))!.active_version!;
    await core.db.edgeNode.create({ data: { edge_id: 'edge-refusing', health_status: 'healthy', last_heartbeat_at: new Date(), config_version: active - 1, config_error: 'snapshot too large' } });
    try {
      const { code, results } = await doctorJson(env);
      expect(withStatus(results, 'fail').map((result) => `${result.check} ${result.message}`)).to.deep.equal([`edges 1 edge refused the version to serve: edge-refusing on ${active - 1}, not ${active}: snapshot too large`]);
      expect(code).to.equal(1);
    } finally {
      await core.db.edgeNode.delete({ where: { edge_id: 'edge-refusing' } });
    }
  });

  it('fails the database check naming the pending migration when the newest is not applied', async () => {
    const newest = (await readMigrations()).at(-1)!.name;
    const [row] = await core.db.$queryRaw<Record<string, unknown>[]>`DELETE FROM "_prisma_migrations" WHERE migration_name = ${newest} RETURNING *`;
    try {
      const { code, results } = await doctorJson(env);
      const [failure, ...others] = withStatus(results, 'fail');
      expect(others).to.deep.equal([]);
      expect(failure).to.include({ check: 'database', message: `reachable, 1 of ${(await readMigrations()).length} migrations pending (${newest})` });
      expect(failure.fix).to.include('cdn migrate');
      expect(code).to.equal(1);
    } finally {
      await core.db.$executeRaw`INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count) VALUES (${row.id}, ${row.checksum}, ${newest}, ${row.started_at}, ${row.finished_at}, 1)`;
    }
  });
});

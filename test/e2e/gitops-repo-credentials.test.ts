import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { simpleGit, type SimpleGit } from 'simple-git';
import { createTestDatabase, dropTestDatabase } from '../support/database.js';
import { eventually } from '../support/eventually.js';
import { GitHttpServer } from '../support/git-http-server.js';

const CLI = new URL('../../bin/cdn.js', import.meta.url).pathname;
const USER = 'x-access-token';
const TOKEN = 'ghs_e2eRepoToken4f1c9a';
const WEBHOOK_SECRET = 'webhook-secret';
const REAL_GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

type Json = any;
type Result = { code: number; stdout: string; stderr: string };

// Every form a credential could leak in: the token, and the Basic header git would send with it.
const LEAKS = [TOKEN, Buffer.from(`${USER}:${TOKEN}`).toString('base64')];
const expectNoCredential = (text: string, where: string) => {
  for (const leak of LEAKS) expect(text.includes(leak), `${where} holds a credential`).to.equal(false);
};

const domainFile = (records: number) =>
  ['domain: private.example', 'records:', ...Array.from({ length: records }, (_, index) => `  - { type: TXT, name: r${index}, content: record ${index} }`), ''].join('\n');

// The run report `cdn reconcile --once` prints, among its log lines (one JSON object each).
const reportOf = (stdout: string): Json => JSON.parse(stdout.match(/^\{\n[\s\S]*?\n\}$/m)![0]);

function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

// A private repository served over HTTP with Basic auth, as CI clones it: `CDN_GITOPS_REPO` with the
// token in the URL for the in-core controller, the token in a file for `cdn reconcile`, and an SSH
// key with known hosts. `git` and `ssh` on the controllers' PATH record their arguments (what `ps` shows).
describe('GitOps repository credentials', function () {
  this.timeout(180000);
  let dir: string;
  let work: SimpleGit;
  let server: GitHttpServer;
  let databaseUrl: string;
  let core: ChildProcess;
  let coreUrl: string;
  let coreOutput = '';
  let clean: string;
  let withToken: string;
  const shas: string[] = [];

  const bin = () => path.join(dir, 'bin');
  const env = (extra: Record<string, string>): NodeJS.ProcessEnv => {
    const base: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin()}:${process.env.PATH}`, CDN_LOG_LEVEL: 'debug', ...extra };
    delete base.CDN_API_TOKEN;
    return base;
  };
  const cdn = (args: string[], extra: Record<string, string> = {}): Promise<Result> =>
    new Promise((resolve) => {
      execFile(process.execPath, [CLI, ...args, '--url', coreUrl], { env: env(extra) }, (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }));
    });
  const api = async (route: string, init: RequestInit = {}): Promise<{ status: number; text: string; body: Json }> => {
    const response = await fetch(`${coreUrl}${route}`, { ...init, headers: { 'content-type': 'application/json', ...init.headers } });
    const text = await response.text();
    return { status: response.status, text, body: text ? JSON.parse(text) : undefined };
  };
  const commit = async (records: number, extra: () => Promise<void> = async () => {}) => {
    await writeFile(path.join(dir, 'work/domains/private.example.yaml'), domainFile(records));
    await extra();
    await work.add('.');
    await work.commit(`private.example with ${records} record(s)`);
    await work.push('origin', 'main');
    shas.push((await work.revparse(['HEAD'])).trim());
    return shas.at(-1)!;
  };
  const hook = () => {
    const body = '{"ref":"refs/heads/main"}';
    return api('/api/v1/gitops/webhook', { method: 'POST', body, headers: { 'x-hub-signature-256': `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex')}` } });
  };
  const runOf = (sha: string, status: string) =>
    eventually(`a ${status} run of ${sha.slice(0, 8)}`, async () => ((await api('/api/v1/gitops/runs')).body.data as Json[]).find((run) => run.commit_sha === sha && run.status === status));

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cdn-repo-credentials-'));
    await mkdir(bin());
    await writeFile(path.join(bin(), 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${dir}/git-args.log'\nexec '${REAL_GIT}' "$@"\n`);
    // No sshd here: this ssh records its arguments and runs the remote command (git-upload-pack) locally.
    await writeFile(path.join(bin(), 'ssh'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${dir}/ssh-args.log'\nfor last; do :; done\nexec sh -c "$last"\n`);
    await chmod(path.join(bin(), 'git'), 0o755);
    await chmod(path.join(bin(), 'ssh'), 0o755);

    await simpleGit().init(true, [path.join(dir, 'srv/cdn.git'), '--initial-branch=main']);
    await mkdir(path.join(dir, 'work/domains'), { recursive: true });
    work = simpleGit(path.join(dir, 'work'));
    await work.init(['--initial-branch=main']);
    await work.addConfig('user.email', 'ops@example.net').addConfig('user.name', 'Ops');
    await work.addRemote('origin', path.join(dir, 'srv/cdn.git'));
    await commit(12, () => writeFile(path.join(dir, 'work/cdn-gitops.yaml'), 'min_live_items: 0\nmax_delete_percent: 10\n'));

    server = await GitHttpServer.start(path.join(dir, 'srv'), USER, TOKEN);
    clean = server.url('cdn.git');
    withToken = server.url('cdn.git', `${USER}:${TOKEN}`);
    databaseUrl = await createTestDatabase();
    core = spawn(process.execPath, [CLI, 'core'], {
      env: env({
        DATABASE_URL: databaseUrl,
        CDN_CORE_PORT: '0',
        CDN_PUBLISH_ENABLED: 'false',
        CDN_DATA_DIR: path.join(dir, 'data'),
        CDN_GITOPS_REPO: withToken,
        CDN_GITOPS_INTERVAL_SECONDS: '3600',
        CDN_GITOPS_WEBHOOK_SECRET: WEBHOOK_SECRET,
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    core.stdout!.on('data', (chunk: Buffer) => (coreOutput += chunk.toString()));
    core.stderr!.on('data', (chunk: Buffer) => (coreOutput += chunk.toString()));
    coreUrl = await eventually('the core to listen', async () => coreOutput.match(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/)?.[1], 60000);
  });
  after(async () => {
    if (core && core.exitCode === null) {
      core.kill('SIGTERM');
      await exitOf(core);
    }
    await server?.close();
    if (databaseUrl) await dropTestDatabase(databaseUrl);
    await rm(dir, { recursive: true, force: true });
  });

  it('clones with the token the URL carries, sending it on every request, and names the repository without it', async () => {
    const run = await runOf(shas[0], 'applied');
    expect(run.repo).to.equal(clean);
    expect(server.requests.length).to.be.greaterThan(0);
    expect(server.requests.filter((request) => !request.authorized)).to.deep.equal([]);
    const [status] = (await api('/api/v1/gitops/status')).body.data.repos;
    expect(status).to.include({ repo: clean, state: 'ok', last_good_commit: shas[0] });
  });

  it('lets an operator accept a refused plan with `cdn accept-plan --repo` and the clean URL, also one typed with the token', async () => {
    const refusedRun = async (records: number) => {
      const sha = await commit(records);
      expect((await hook()).status).to.equal(202);
      await runOf(sha, 'refused');
      return sha;
    };
    const first = await refusedRun(2);
    const { warnings } = (await api('/api/v1/overview/warnings')).body.data as { warnings: Json[] };
    expect(warnings.find((warning) => warning.code === 'gitops_refused')?.message).to.include(`the GitOps repository ${clean} is refused`);
    const accepted = await cdn(['accept-plan', '--repo', clean, '--commit', first.slice(0, 12), '--reason', 'records moved to another zone']);
    expect(accepted.code, accepted.stderr).to.equal(0);
    expect(accepted.stdout).to.include(`accepted the refused plan of ${clean}`);
    expect((await runOf(first, 'applied')).accepted).to.include({ reason: 'records moved to another zone' });

    await commit(12);
    expect((await hook()).status).to.equal(202);
    await runOf(shas.at(-1)!, 'applied');
    const second = await refusedRun(1);
    const typed = await api('/api/v1/gitops/acceptances', { method: 'POST', body: JSON.stringify({ repo: withToken, commit_sha: second, reason: 'typed as the docs used to say' }) });
    expect(typed.status, typed.text).to.equal(201);
    expect(typed.body.data.repo).to.equal(clean);
    expect((await runOf(second, 'applied')).accepted).to.include({ reason: 'typed as the docs used to say' });
    expect(((await api(`/api/v1/gitops/acceptances?repo=${encodeURIComponent(withToken)}`)).body.data as Json[]).map((item) => item.repo)).to.deep.equal([clean, clean]);
  });

  it('runs `cdn reconcile` with the token from CDN_GITOPS_REPO_TOKEN_FILE under the same name, and reports a refused token without showing it', async () => {
    const tokenFile = path.join(dir, 'token');
    await writeFile(tokenFile, `${TOKEN}\n`);
    const once = await cdn(['reconcile', '--repo', clean, '--once'], { CDN_GITOPS_REPO_TOKEN_FILE: tokenFile, CDN_DATA_DIR: path.join(dir, 'data-once') });
    expect(once.code, once.stderr).to.equal(0);
    expect(reportOf(once.stdout)).to.include({ repo: clean, commit_sha: shas.at(-1), status: 'no_changes' });
    expectNoCredential(once.stdout + once.stderr, 'the output of cdn reconcile');

    const wrong = 'ghs_revokedToken77';
    await writeFile(tokenFile, wrong);
    const refused = await cdn(['reconcile', '--repo', clean, '--once'], { CDN_GITOPS_REPO_TOKEN_FILE: tokenFile, CDN_DATA_DIR: path.join(dir, 'data-refused') });
    expect(refused.code).to.equal(1);
    const report = reportOf(refused.stdout);
    expect(report).to.include({ repo: clean, status: 'failed' });
    expect(report.error, report.error).to.include(`git clone ${clean} failed`).and.to.include('the server did not accept the token');
    expect(refused.stdout + refused.stderr).to.not.include(wrong);
    expect(server.requests.some((request) => !request.authorized)).to.equal(true);
  });

  it('clones an SSH repository with the key file and known hosts given, never prompting', async () => {
    const key = path.join(dir, 'keys/id_ed25519');
    const knownHosts = path.join(dir, 'keys/known hosts');
    await mkdir(path.dirname(key));
    await writeFile(key, 'not read by the stand-in ssh\n');
    await writeFile(knownHosts, 'git.invalid ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE7Ywmo7BQfGVHhn0J7E7MS9zkq8NqFIjbShqNSG2+9Q\n');
    const repo = `ssh://git@git.invalid${path.join(dir, 'srv/cdn.git')}`;
    const once = await cdn(['reconcile', '--repo', repo, '--once'], { CDN_GITOPS_SSH_KEY_FILE: key, CDN_GITOPS_KNOWN_HOSTS_FILE: knownHosts, CDN_DATA_DIR: path.join(dir, 'data-ssh') });
    expect(once.code, once.stderr).to.equal(0);
    expect(reportOf(once.stdout)).to.include({ repo, commit_sha: shas.at(-1), status: 'no_changes' });
    const ssh = await readFile(path.join(dir, 'ssh-args.log'), 'utf8');
    expect(ssh).to.include(`-o BatchMode=yes -o IdentitiesOnly=yes -i ${key} -o StrictHostKeyChecking=yes -o UserKnownHostsFile=${knownHosts} `);
    expect(ssh).to.include(`git@git.invalid git-upload-pack '${path.join(dir, 'srv/cdn.git')}'`);
  });

  it('shows the token in no API answer, log line, audit entry, git command line or file of the clone', async () => {
    const routes = ['/api/v1/gitops/runs?limit=500', '/api/v1/gitops/status', `/api/v1/gitops/acceptances?repo=${encodeURIComponent(clean)}`, '/api/v1/overview/warnings?limit=500', '/api/v1/audit?limit=500'];
    for (const route of routes) {
      const answer = await api(route);
      expect(answer.status, `${route}: ${answer.text}`).to.equal(200);
      expectNoCredential(answer.text, route);
    }
    const audit = ((await api('/api/v1/audit?limit=500')).body.data as Json[]).filter((event) => event.action === 'gitops.accept_refused_plan');
    expect(audit.map((event) => event.detail.body.repo)).to.deep.equal([clean, clean]);
    const repos = (await api('/api/v1/gitops/status')).body.data.repos as Json[];
    expect(repos.find((repo) => repo.repo === clean)).to.include({ state: 'failed' });

    expect(coreOutput).to.include(`"repo":"${clean}"`);
    expectNoCredential(coreOutput, 'the core log');
    const gitArgs = await readFile(path.join(dir, 'git-args.log'), 'utf8');
    expect(gitArgs).to.include(`clone --branch main --single-branch -- ${clean}`);
    expectNoCredential(gitArgs, 'a git command line');
    for (const file of await filesUnder(path.join(dir, 'data'))) expectNoCredential(await readFile(file, 'latin1'), file);
  });
});

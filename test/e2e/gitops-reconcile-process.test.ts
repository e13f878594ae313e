import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { simpleGit, type SimpleGit } from 'simple-git';
import { TestCore, type Json } from '../support/core.js';
import { eventually } from '../support/eventually.js';

const CLI = new URL('../../bin/cdn.js', import.meta.url).pathname;

const domainFile = (texts: string[]) => `domain: loop.example\nrecords:\n  - { type: A, name: "@", content: 192.0.2.10 }\n${texts.map((text) => `  - { type: TXT, name: "@", content: ${text} }\n`).join('')}`;

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

// `cdn reconcile` as its own process, against a core on a real database and a git repository pushed to a local bare remote.
describe('cdn reconcile as a standalone process', function () {
  this.timeout(90000);
  let dir: string;
  let work: SimpleGit;
  let core: TestCore;
  let child: ChildProcess | undefined;

  const commit = async (texts: string[]) => {
    await writeFile(path.join(dir, 'work/domains/loop.example.yaml'), domainFile(texts));
    await work.add('.');
    await work.commit(`loop.example with ${texts.length} TXT record(s)`);
    await work.push('origin', 'main');
    return (await work.revparse(['HEAD'])).trim();
  };
  const runFor = (sha: string) => eventually(`a run of ${sha.slice(0, 8)}`, async () => (await core.get('/api/v1/gitops/runs')).data.find((run: Json) => run.commit_sha === sha));
  const liveTexts = async () => {
    const domain = (await core.get('/api/v1/domains?limit=500')).data.find((item: Json) => item.domain === 'loop.example');
    return (await core.get(`/api/v1/domains/${domain.id}/dns/records`)).data.filter((record: Json) => record.type === 'TXT').map((record: Json) => record.content);
  };

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cdn-reconcile-process-'));
    await simpleGit().init(true, [path.join(dir, 'remote.git'), '--initial-branch=main']);
    await mkdir(path.join(dir, 'work/domains'), { recursive: true });
    work = simpleGit(path.join(dir, 'work'));
    await work.init(['--initial-branch=main']);
    await work.addConfig('user.email', 'ops@example.net').addConfig('user.name', 'Ops');
    await work.addRemote('origin', path.join(dir, 'remote.git'));
    core = await TestCore.start();
  });
  after(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exitOf(child);
    }
    await core?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps reconciling every interval until SIGTERM, then exits 0', async () => {
    const first = await commit(['first']);
    const env: NodeJS.ProcessEnv = { ...process.env, CDN_DATA_DIR: path.join(dir, 'data'), CDN_LOG_LEVEL: 'silent' };
    delete env.CDN_API_TOKEN;
    child = spawn(process.execPath, [CLI, 'reconcile', '--repo', `file://${path.join(dir, 'remote.git')}`, '--interval', '1', '--url', core.url], { env, stdio: 'ignore' });
    expect(await runFor(first)).to.include({ status: 'applied', trigger: 'start' });
    expect(await liveTexts()).to.deep.equal(['first']);

    const second = await commit(['first', 'second']);
    expect(await runFor(second)).to.include({ status: 'applied', trigger: 'interval' });
    expect((await liveTexts()).sort()).to.deep.equal(['first', 'second']);
    expect(child.exitCode, 'the controller is still running').to.equal(null);

    child.kill('SIGTERM');
    expect(await exitOf(child)).to.deep.equal({ code: 0, signal: null });
  });
});

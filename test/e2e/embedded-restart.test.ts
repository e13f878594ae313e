import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { expect } from 'chai';

const CLI = new URL('../../bin/cdn.js', import.meta.url).pathname;

type Started = { child: ChildProcess; url: string; logs: Record<string, unknown>[] };

// Starts `cdn core` without DATABASE_URL and resolves once it logs where it listens.
function startCore(dataDir: string): Promise<Started> {
  const env: NodeJS.ProcessEnv = { ...process.env, CDN_DATA_DIR: dataDir, CDN_CORE_PORT: '0', CDN_LOG_LEVEL: 'info' };
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, [CLI, 'core'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const logs: Record<string, unknown>[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('core did not start within 30 s')), 30000);
    child.once('exit', (code) => reject(new Error(`core exited early with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>;
      logs.push(entry);
      if (entry.msg === 'core listening') {
        clearTimeout(timer);
        resolve({ child, url: String(entry.url), logs });
      }
    });
  });
}

function stopCore(started: Started): Promise<number | null> {
  return new Promise((resolve) => {
    started.child.once('exit', (code) => resolve(code));
    started.child.kill('SIGTERM');
  });
}

describe('cdn core with the embedded database', function () {
  this.timeout(90000);
  let dataDir: string;
  let running: Started | undefined;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'cdn-e2e-'));
    await chmod(dataDir, 0o755);
  });
  after(async () => {
    if (running?.child.exitCode === null) await stopCore(running);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('initialises the cluster on first start, stops it cleanly on SIGTERM and reuses its data on the next start', async () => {
    running = await startCore(dataDir);
    expect(running.logs.find((entry) => entry.msg === 'embedded postgres started')).to.include({ reused: false });
    const created = await fetch(`${running.url}/api/v1/domains`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ domain: 'persisted.example' }),
    });
    expect(created.status).to.equal(201);

    expect(await stopCore(running)).to.equal(0);
    expect(running.logs.map((entry) => entry.msg)).to.include('embedded postgres stopped');
    expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).to.equal(false);

    running = await startCore(dataDir);
    expect(running.logs.find((entry) => entry.msg === 'embedded postgres started')).to.include({ reused: true });
    const list = (await (await fetch(`${running.url}/api/v1/domains`)).json()) as { data: { domain: string }[] };
    expect(list.data.map((domain) => domain.domain)).to.deep.equal(['persisted.example']);
    expect(await stopCore(running)).to.equal(0);
  });
});

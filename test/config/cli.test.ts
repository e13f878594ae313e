import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';

const run = promisify(execFile);
const CLI = new URL('../../bin/cdn.js', import.meta.url).pathname;

describe('cdn command line', () => {
  it('lists the commands in --help', async () => {
    const { stdout } = await run(process.execPath, [CLI, '--help']);
    for (const command of ['core', 'migrate', 'admin']) expect(stdout).to.match(new RegExp(`^\\s+${command}\\b`, 'm'));
  });

  it('stops with a one-line error naming a badly set variable', async () => {
    const failure = await run(process.execPath, [CLI, 'core'], { env: { ...process.env, CDN_SYNC_INTERVAL_SECONDS: 'abc' } }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).to.equal(2);
    expect(failure?.stderr.trim()).to.equal('cdn: configuration error: CDN_SYNC_INTERVAL_SECONDS="abc" is not an integer');
  });
});

import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { keepNextTickShape, keptTickObject } from '../../src/shared/next-tick-shape.js';

const MODULE = new URL('../../src/shared/next-tick-shape.ts', import.meta.url).href;

// A process that calls nextTick, then five times goes idle through six full collections with no
// tick object alive (as an idle process's memory reducer does), calls it again and prints how V8's
// feedback for the tick object literal stands: one state per property of the literal, per round.
// Five rounds, not one: on a loaded machine one round of collections has been seen to leave the
// shapes alive (CI, once).
function literalStatesAfterIdleCollections(keep: boolean): string[][] {
  const script = `
    import { keepNextTickShape } from '${MODULE}';
    if (${keep}) keepNextTickShape();
    const ticks = (count) => new Promise((resolve) => { let left = count; const step = () => (--left > 0 ? process.nextTick(step) : resolve()); process.nextTick(step); });
    const pause = () => new Promise((resolve) => setTimeout(resolve, 10));
    await ticks(10000);
    for (let round = 0; round < 5; round++) {
      await pause();
      for (let n = 0; n < 6; n++) gc();
      await pause();
      await ticks(10000);
      %DebugPrint(process.nextTick);
    }
  `;
  // V8 prints to stdout through C stdio: into a file, which it flushes at exit (a pipe lost most of it).
  const dir = mkdtempSync(path.join(tmpdir(), 'cdn-next-tick-'));
  const out = openSync(path.join(dir, 'stdout'), 'w');
  try {
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', '--allow-natives-syntax', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60000, stdio: ['ignore', out, 'pipe'] });
    expect(child.status, child.stderr).to.equal(0);
    const printed = readFileSync(path.join(dir, 'stdout'), 'utf8');
    const states = [...printed.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((match) => match[1]);
    return [0, 4, 8, 12, 16].map((start) => states.slice(start, start + 4));
  } finally {
    closeSync(out);
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the tick object kept alive (shared/next-tick-shape.ts)', () => {
  it('keeps one of process.nextTick\'s tick objects, with its callback, arguments and async ids', () => {
    keepNextTickShape();
    const kept = keptTickObject()!;
    expect(kept).to.include.keys('callback', 'args');
    expect(Object.getOwnPropertySymbols(kept).map((symbol) => symbol.description)).to.include.members(['async_id_symbol', 'trigger_async_id_symbol']);
    keepNextTickShape();
    expect(keptTickObject()).to.equal(kept);
  });

  it('without it, idle collections leave the tick object literal megamorphic in V8 (the slow path it prevents)', function () {
    this.timeout(60000);
    const rounds = literalStatesAfterIdleCollections(false);
    expect(rounds.map((states) => states.length)).to.deep.equal([4, 4, 4, 4, 4]);
    expect(rounds.flat()).to.include('MEGAMORPHIC');
  });

  it('with it, the literal stays monomorphic through the same collections', function () {
    this.timeout(60000);
    const rounds = literalStatesAfterIdleCollections(true);
    expect(rounds).to.deep.equal(Array(5).fill(['MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC']));
  });
});

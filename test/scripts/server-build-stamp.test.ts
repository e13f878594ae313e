import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
// @ts-expect-error: a plain JavaScript module of scripts/, without types
import { serverSources, sourceStamp } from '../../scripts/server-build-stamp.mjs';

describe('the fingerprint that tells whether lib/ matches the sources (scripts/server-build-stamp.mjs)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'cdn-stamp-'));
    mkdirSync(path.join(dir, 'edge'));
    writeFileSync(path.join(dir, 'cli.ts'), 'export const a = 1;\n');
    writeFileSync(path.join(dir, 'edge', 'proxy.ts'), 'export const b = 2;\n');
    writeFileSync(path.join(dir, 'types.d.ts'), 'declare const c: number;\n');
    writeFileSync(path.join(dir, 'notes.md'), 'not compiled\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const stamp = (): string => sourceStamp(serverSources(dir), dir);

  it('covers the TypeScript sources only, in a stable order', () => {
    expect(serverSources(dir).map((file: string) => path.relative(dir, file))).to.deep.equal(['cli.ts', 'edge/proxy.ts']);
    expect(stamp()).to.equal(stamp());
  });

  it('changes when a source is edited, touched, added or removed', () => {
    const seen = new Set([stamp()]);
    writeFileSync(path.join(dir, 'cli.ts'), 'export const a = 10;\n');
    seen.add(stamp());
    utimesSync(path.join(dir, 'edge', 'proxy.ts'), new Date(2020, 0, 1), new Date(2020, 0, 1));
    seen.add(stamp());
    writeFileSync(path.join(dir, 'edge', 'new.ts'), 'export {};\n');
    seen.add(stamp());
    rmSync(path.join(dir, 'edge', 'new.ts'));
    rmSync(path.join(dir, 'cli.ts'));
    seen.add(stamp());
    expect(seen.size).to.equal(5);
  });
});

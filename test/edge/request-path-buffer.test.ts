import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

// The global Buffer is a getter on Node's globalThis: each read in optimised code is a call into
// it (some 200 instructions, three times a cached HIT). The modules a request passes through
// import it from node:buffer instead, a binding V8 reads as a constant (docs/runtime.md).
const REQUEST_PATH = ['src/edge/pipeline', 'src/edge/cache', 'src/edge/origin'];
const USES_BUFFER = /\bBuffer\.|instanceof Buffer\b/;
const IMPORTS_BUFFER = /^import \{ Buffer \} from 'node:buffer';$/m;

describe('the request path reads Buffer from node:buffer', () => {
  it('is a getter on globalThis in this Node', () => {
    expect(Object.getOwnPropertyDescriptor(globalThis, 'Buffer')?.get).to.be.a('function');
  });

  it('is imported by every module of the request path that uses it', () => {
    const missing: string[] = [];
    for (const folder of REQUEST_PATH) {
      for (const name of readdirSync(folder).filter((file) => file.endsWith('.ts'))) {
        const source = readFileSync(path.join(folder, name), 'utf8');
        if (USES_BUFFER.test(source) && !IMPORTS_BUFFER.test(source)) missing.push(path.join(folder, name));
      }
    }
    expect(missing).to.deep.equal([]);
  });
});

import { expect } from 'chai';
import { normaliseHost } from '../../src/shared/request-host.js';

// The definition normaliseHost reads a character at a time: lower-cased, one trailing dot off, at
// most 253 characters, dot-separated labels of [a-z0-9_-].
function byThePattern(name: string): string | undefined {
  let host = name.toLowerCase();
  if (host.endsWith('.')) host = host.slice(0, -1);
  return host.length <= 253 && /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/.test(host) ? host : undefined;
}

// A small seeded generator (mulberry32), so a failure names a case that comes back.
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('request host names (shared/request-host.ts)', () => {
  it('takes a name exactly as the pattern does, for names of any characters a request can carry', () => {
    const next = random(26);
    const alphabet = 'aZz09-_..\u0000\t %@:/\\\u007f\u00e9\u00c9\u00ff';
    for (let round = 0; round < 20000; round++) {
      const length = Math.floor(next() * 10);
      let name = '';
      for (let index = 0; index < length; index++) name += alphabet[Math.floor(next() * alphabet.length)];
      if (name.includes(':') || name.startsWith('[')) continue;
      expect(normaliseHost(name), JSON.stringify(name)).to.equal(byThePattern(name));
    }
    for (const name of ['', '.', '..', 'a.', 'a..', '.a', 'a..b', 'A.B.', 'WWW.Example.COM', 'x'.repeat(253), `${'x'.repeat(253)}.`, 'x'.repeat(254)]) {
      expect(normaliseHost(name), JSON.stringify(name)).to.equal(byThePattern(name));
    }
  });

  it('refuses a character beyond latin1 that lower-cases into a label (the Kelvin sign), which the pattern would take as `k`', () => {
    // Node reads a head as latin1, so none reaches the door; a caller with other text gets no host.
    expect(byThePattern('\u212a.example')).to.equal('k.example');
    expect(normaliseHost('\u212a.example')).to.equal(undefined);
  });
});

import { expect } from 'chai';
import { prefersGzip } from '../../src/http/accept-encoding.js';

describe('Accept-Encoding (RFC 9110)', () => {
  const CASES: [string | undefined, boolean][] = [
    [undefined, false],
    ['', false],
    ['gzip', true],
    ['GZIP', true],
    ['x-gzip', true],
    ['gzip, deflate, br', true],
    ['br;q=1.0, gzip;q=0.8, *;q=0.1', true],
    ['  gzip ; q=0.5 ,identity;q=0.5', true],
    ['gzip;Q=0.9', true],
    ['*', true],
    ['gzip;q=0', false],
    ['gzip; q=0.000', false],
    ['GZip;q=0, *', false],
    ['*;q=0', false],
    ['identity, gzip;q=0.5', false],
    ['deflate, br', false],
    ['gzipped', false],
    ['notgzip, gzip-like', false],
    ['gzip;q=1.5', false],
    ['gzip;q=abc', false],
    ['identity;q=0, gzip;q=0.1', true],
  ];
  for (const [header, gzip] of CASES) {
    it(`${gzip ? 'sends gzip' : 'sends the uncompressed body'} for ${header === undefined ? 'no header' : JSON.stringify(header)}`, () => {
      expect(prefersGzip(header)).to.equal(gzip);
    });
  }
});

import { expect } from 'chai';
import { parseHttpDate } from '../../../src/edge/cache/http-date.js';

const NOW = Date.parse('2026-06-01T00:00:00Z');
const at = (iso: string) => Date.parse(iso);

describe('HTTP-date parsing (RFC 9110 §5.6.7)', () => {
  for (const [value, iso] of [
    ['Sun, 06 Nov 1994 08:49:37 GMT', '1994-11-06T08:49:37Z'],
    ['Sunday, 06-Nov-94 08:49:37 GMT', '1994-11-06T08:49:37Z'],
    ['Sun Nov  6 08:49:37 1994', '1994-11-06T08:49:37Z'],
    ['Sun Nov 16 08:49:37 1994', '1994-11-16T08:49:37Z'],
    ['Thu, 29 Feb 2024 00:00:00 GMT', '2024-02-29T00:00:00Z'],
    ['Wednesday, 01-Jan-76 00:00:00 GMT', '2076-01-01T00:00:00Z'],
    ['Friday, 01-Jan-77 00:00:00 GMT', '1977-01-01T00:00:00Z'],
    ['Wed, 31 Dec 2025 23:59:60 GMT', '2025-12-31T23:59:59Z'],
  ] as const) {
    it(`accepts ${value}`, () => expect(parseHttpDate(value, NOW)).to.equal(at(iso)));
  }

  for (const value of [
    '',
    '0',
    '-1',
    '2026',
    'Tomorrow 1',
    '2026-01-01T00:00:00Z',
    'Sun, 06 Nov 1994 08:49:37 UTC',
    'Sun, 06 Nov 1994 08:49:37 gmt',
    'sun, 06 nov 1994 08:49:37 GMT',
    'Sun, 6 Nov 1994 08:49:37 GMT',
    'Sun,  06 Nov 1994 08:49:37 GMT',
    ' Sun, 06 Nov 1994 08:49:37 GMT',
    'Sun, 06 Nov 94 08:49:37 GMT',
    'Sun, 06 Nov 1994 08:49 GMT',
    'Sun, 06 Nov 1994 24:00:00 GMT',
    'Sun, 06 Nov 1994 08:60:00 GMT',
    'Sun, 31 Nov 1994 08:49:37 GMT',
    'Fri, 29 Feb 2023 00:00:00 GMT',
    'Sun, 06 Foo 1994 08:49:37 GMT',
    'Sun, 06 Nov 1994 08:49:37 GMT+1',
    'Sunday, 06-Nov-1994 08:49:37 GMT',
    'Sun, 06-Nov-94 08:49:37 GMT',
    'Sun Nov 6 08:49:37 1994',
    'Sun Nov  6 08:49:37 1994 GMT',
    `Sun, 06 Nov 1994 08:49:37 GMT${' '.repeat(50)}`,
  ]) {
    it(`refuses ${JSON.stringify(value)}`, () => expect(parseHttpDate(value, NOW)).to.be.NaN);
  }
});

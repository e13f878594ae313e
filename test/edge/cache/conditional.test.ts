import { expect } from 'chai';
import { noneMatchHolds, notModified, notModifiedResponse } from '../../../src/edge/cache/conditional.js';

const NOW = Date.parse('2026-06-01T00:00:00Z');

describe('conditional requests answered from the cache', () => {
  for (const [list, etag, holds] of [
    ['"a"', '"a"', true],
    ['W/"a"', '"a"', true],
    ['"a"', 'W/"a"', true],
    ['W/"a"', 'W/"a"', true],
    ['"x", "y", W/"a"', '"a"', true],
    ['"x",W/"a"', '"a"', true],
    ['"x" , "a"', '"a"', true],
    ['"a,b"', '"a,b"', true],
    ['"a,b"', '"a"', false],
    ['"b"', '"a"', false],
    ['"ab"', '"a"', false],
    ['a', 'a', false],
    ['"a', '"a"', false],
    ['"x" "a"', '"a"', false],
    ['w/"a"', '"a"', false],
    ['"x", *', '"a"', false],
    ['*', '"a"', true],
  ] as const) {
    it(`If-None-Match ${list} against ETag ${etag}: ${holds ? '304' : 'the object'}`, () => expect(noneMatchHolds(list, etag)).to.equal(holds));
  }

  it('evaluates a 2,000-entry If-None-Match list in one pass', () => {
    const list = Array.from({ length: 2000 }, (_, n) => `"e${n}"`).join(',');
    const started = process.hrtime.bigint();
    for (let round = 0; round < 100; round++) {
      expect(noneMatchHolds(list, '"e1999"')).to.equal(true);
      expect(noneMatchHolds(list, '"other"')).to.equal(false);
    }
    expect(Number(process.hrtime.bigint() - started) / 1e6, 'ms for 200 evaluations').to.be.below(500);
  });

  it('does not evaluate an If-None-Match longer than 16 KiB', () => {
    expect(noneMatchHolds(`${'"x", '.repeat(4000)}"a"`, '"a"')).to.equal(false);
  });

  it('uses If-Modified-Since only without If-None-Match, with valid dates no later than now', () => {
    const stored = { etag: '"a"', 'last-modified': 'Mon, 01 Dec 2025 00:00:00 GMT' };
    expect(notModified({ 'if-modified-since': 'Tue, 02 Dec 2025 00:00:00 GMT' }, stored, 0, NOW)).to.equal(true);
    expect(notModified({ 'if-modified-since': 'Mon, 01 Dec 2025 00:00:00 GMT' }, stored, 0, NOW)).to.equal(true);
    expect(notModified({ 'if-modified-since': 'Sun, 30 Nov 2025 00:00:00 GMT' }, stored, 0, NOW)).to.equal(false);
    expect(notModified({ 'if-none-match': '"b"', 'if-modified-since': 'Tue, 02 Dec 2025 00:00:00 GMT' }, stored, 0, NOW)).to.equal(false);
    expect(notModified({ 'if-modified-since': '2026' }, stored, 0, NOW)).to.equal(false);
    expect(notModified({ 'if-modified-since': 'Thu, 01 Jan 2099 00:00:00 GMT' }, stored, 0, NOW)).to.equal(false);
  });

  it('compares If-Modified-Since with the stored Date, else the time stored, when there is no Last-Modified', () => {
    const since = { 'if-modified-since': 'Tue, 02 Dec 2025 00:00:00 GMT' };
    expect(notModified(since, { date: 'Mon, 01 Dec 2025 00:00:00 GMT' }, NOW, NOW)).to.equal(true);
    expect(notModified(since, { date: 'Wed, 03 Dec 2025 00:00:00 GMT' }, 0, NOW)).to.equal(false);
    expect(notModified(since, {}, Date.parse('2025-12-01T00:00:00Z'), NOW)).to.equal(true);
    expect(notModified(since, {}, Date.parse('2025-12-03T00:00:00Z'), NOW)).to.equal(false);
  });

  it('answers If-None-Match: * whenever an object is stored, with or without an ETag', () => {
    expect(notModified({ 'if-none-match': '*' }, {}, 0, NOW)).to.equal(true);
    expect(notModified({ 'if-none-match': '"a"' }, {}, 0, NOW)).to.equal(false);
  });

  it('gives a 304 the headers RFC 9110 §15.4.5 lists, Last-Modified only without an ETag', () => {
    const full = { age: '5', 'x-cache': 'HIT', 'cache-control': 'max-age=60', 'content-location': '/a.en', date: 'd', etag: '"a"', expires: 'e', vary: 'Accept', 'last-modified': 'l', 'content-type': 'text/plain', 'content-length': '10', 'x-custom': '1' };
    expect(notModifiedResponse(full)).to.deep.equal({ status: 304, headers: { age: '5', 'x-cache': 'HIT', 'cache-control': 'max-age=60', 'content-location': '/a.en', date: 'd', etag: '"a"', expires: 'e', vary: 'Accept' }, body: null });
    expect(notModifiedResponse({ age: '0', 'x-cache': 'HIT', 'last-modified': 'l' }).headers).to.deep.equal({ age: '0', 'x-cache': 'HIT', 'last-modified': 'l' });
  });
});

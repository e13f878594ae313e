import { expect } from 'chai';
import { parseTargetedField, targetList, targetedDirectives } from '../../../src/edge/cache/targeted-cache-control.js';

const asObject = (value: string) => {
  const directives = parseTargetedField(value);
  return directives && Object.fromEntries(directives);
};

describe('targeted cache-control fields (RFC 9213, RFC 8941 Dictionary)', () => {
  for (const [value, expected] of [
    ['max-age=60', { 'max-age': '60' }],
    ['max-age=60, no-store', { 'max-age': '60', 'no-store': '' }],
    ['max-age=60,stale-if-error=30', { 'max-age': '60', 'stale-if-error': '30' }],
    ['  max-age=60 ', { 'max-age': '60' }],
    ['max-age=60;a=1;b, private=?1', { 'max-age': '60', private: '' }],
    ['no-store=?0, max-age=5', { 'max-age': '5' }],
    ['max-age=5, max-age=9', { 'max-age': '9' }],
    ['max-age="60"', {}],
    ['max-age=1.5', {}],
    ['max-age=-1', {}],
    ['max-age=token', {}],
    ['no-cache="set-cookie"', { 'no-cache': '' }],
    ['private=(a b), max-age=3', { private: '', 'max-age': '3' }],
    ['x-unknown=:YWJj:, max-age=3', { 'x-unknown': '', 'max-age': '3' }],
  ] as const) {
    it(`reads ${JSON.stringify(value)}`, () => expect(asObject(value)).to.deep.equal(expected));
  }

  for (const value of ['', 'Max-Age=60', 'max-age = 60', 'max-age=60,', 'max-age=60,,no-store', 'max-age=60 no-store', 'max-age="unterminated', 'max-age=1234567890123456', '=60', 'max-age=?2', 'a=(1 2', 'x'.repeat(5000)]) {
    it(`refuses ${JSON.stringify(value.slice(0, 40))} as a whole`, () => expect(parseTargetedField(value)).to.equal(undefined));
  }

  it('lists the domain field first, then CDN-Cache-Control, once', () => {
    expect(targetList(null)).to.deep.equal(['cdn-cache-control']);
    expect(targetList('Acme-CDN-Cache-Control')).to.deep.equal(['acme-cdn-cache-control', 'cdn-cache-control']);
    expect(targetList('CDN-Cache-Control')).to.deep.equal(['cdn-cache-control']);
  });

  it('uses the first field of the list with a valid value', () => {
    const targets = targetList('Acme-Cache-Control');
    expect(Object.fromEntries(targetedDirectives({ 'acme-cache-control': 'max-age=1', 'cdn-cache-control': 'max-age=2' }, targets)!)).to.deep.equal({ 'max-age': '1' });
    expect(Object.fromEntries(targetedDirectives({ 'acme-cache-control': 'max-age =1', 'cdn-cache-control': 'max-age=2' }, targets)!)).to.deep.equal({ 'max-age': '2' });
    expect(targetedDirectives({ 'cache-control': 'max-age=3' }, targets)).to.equal(undefined);
  });
});

import { expect } from 'chai';
import { cacheKey, variantKey } from '../../../src/edge/cache/cache-key.js';
import type { CacheRule } from '../../../src/edge/cache/types.js';
import { configWith, contextFor } from './helpers.js';

const rule = (cache_key: CacheRule['cache_key']): CacheRule => ({ id: 'r', name: 'r', priority: 0, match: {}, cache_key });

describe('edge cache key', () => {
  const config = configWith();

  it('keys on domain id, host, path and the query as sent by default', () => {
    const key = cacheKey(contextFor(config, 'http://www.example.com/a/b?z=1&a=2'), undefined);
    expect(key).to.equal('dom-1\nwww.example.com\n/a/b\nz=1&a=2');
  });

  it('shares keys between GET and HEAD and between http and https', () => {
    const get = cacheKey(contextFor(config, 'http://example.com/x?q=1'), undefined);
    expect(cacheKey(contextFor(config, 'https://example.com/x?q=1', { method: 'HEAD', scheme: 'https' }), undefined)).to.equal(get);
  });

  it('sorts the parameters in sort mode and leaves them out in ignore mode', () => {
    const sorted = configWith({ cache: { query_string_mode: 'sort' } });
    expect(cacheKey(contextFor(sorted, 'http://example.com/x?b=2&a=1'), undefined)).to.equal(cacheKey(contextFor(sorted, 'http://example.com/x?a=1&b=2'), undefined));
    const ignored = configWith({ cache: { query_string_mode: 'ignore' } });
    expect(cacheKey(contextFor(ignored, 'http://example.com/x?b=2'), undefined)).to.equal('dom-1\nexample.com\n/x\n');
  });

  it('keeps only the named parameters of an include rule and drops those of an exclude rule', () => {
    const ctx = contextFor(config, 'http://example.com/x?utm_source=mail&id=7&page=2');
    expect(cacheKey(ctx, rule({ query_strings: { mode: 'include', names: ['page', 'id'] } }))).to.match(/\nid=7&page=2$/);
    expect(cacheKey(ctx, rule({ query_strings: { mode: 'exclude', names: ['utm_source'] } }))).to.match(/\nid=7&page=2$/);
    expect(cacheKey(ctx, rule({ query_strings: { mode: 'none' } }))).to.match(/\n\/x\n$/);
  });

  it('ignores the query when a page rule sets cache level basic', () => {
    expect(cacheKey(contextFor(config, 'http://example.com/x?v=1', { page: { cache_level: 'basic' } }), undefined)).to.equal('dom-1\nexample.com\n/x\n');
  });

  it('adds the headers, cookies and country a rule names', () => {
    const spec = rule({ headers: ['X-Device'], cookies: ['lang'], country: true });
    const de = contextFor(config, 'http://example.com/', { headers: { 'x-device': 'mobile', cookie: 'lang=de; other=1' }, country: 'DE' });
    expect(cacheKey(de, spec)).to.equal('dom-1\nexample.com\n/\n\nh:X-Device=mobile\nc:lang=de\ncountry=DE');
    const fr = contextFor(config, 'http://example.com/', { headers: { 'x-device': 'mobile', cookie: 'lang=de' }, country: 'FR' });
    expect(cacheKey(fr, spec)).to.not.equal(cacheKey(de, spec));
  });

  it('hashes long parts so a key stays bounded', () => {
    const key = cacheKey(contextFor(config, `http://example.com/${'a'.repeat(5000)}?${'q'.repeat(5000)}`), undefined);
    expect(key.length).to.be.below(200);
    expect(key).to.match(/\n#[0-9a-f]{64}\n#[0-9a-f]{64}$/);
  });

  it('adds the values of the Vary headers to a variant key', () => {
    const headers = { 'accept-encoding': 'gzip', 'accept-language': 'de' };
    expect(variantKey('k', ['accept-encoding', 'accept-language'], headers)).to.equal('k\nvary\naccept-encoding=gzip\naccept-language=de');
    expect(variantKey('k', ['accept-encoding'], {})).to.equal('k\nvary\naccept-encoding=');
  });
});

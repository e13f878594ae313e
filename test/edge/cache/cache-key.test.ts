import { expect } from 'chai';
import { keyParts, keyText, originSaw, partsOfKey, variantKey } from '../../../src/edge/cache/cache-key.js';
import { compileActiveConfig } from '../../../src/edge/config/active-config.js';
import type { CacheRule } from '../../../src/edge/cache/types.js';
import { configWith, contextFor, snapshotWith } from './helpers.js';

const rule = (cache_key: CacheRule['cache_key']): CacheRule => ({ id: 'r', name: 'r', priority: 0, match: {}, cache_key });
const cacheKey = (...args: Parameters<typeof keyParts>) => keyText(keyParts(...args));

describe('edge cache key', () => {
  const config = configWith();

  it('keys on domain id, scheme, host, path and the query as sent by default', () => {
    const key = cacheKey(contextFor(config, 'http://www.example.com/a/b?z=1&a=2'), undefined);
    expect(key).to.equal('dom-1\nhttp\nwww.example.com\n/a/b\nz=1&a=2');
  });

  it('shares keys between GET and HEAD, and keeps http and https apart', () => {
    const get = cacheKey(contextFor(config, 'http://example.com/x?q=1'), undefined);
    expect(cacheKey(contextFor(config, 'http://example.com/x?q=1', { method: 'HEAD' }), undefined)).to.equal(get);
    expect(cacheKey(contextFor(config, 'https://example.com/x?q=1', { scheme: 'https' }), undefined)).to.not.equal(get);
  });

  it('sorts the parameters in sort mode and leaves them out in ignore mode', () => {
    const sorted = configWith({ cache: { query_string_mode: 'sort' } });
    expect(cacheKey(contextFor(sorted, 'http://example.com/x?b=2&a=1'), undefined)).to.equal(cacheKey(contextFor(sorted, 'http://example.com/x?a=1&b=2'), undefined));
    const ignored = configWith({ cache: { query_string_mode: 'ignore' } });
    expect(cacheKey(contextFor(ignored, 'http://example.com/x?b=2'), undefined)).to.equal('dom-1\nhttp\nexample.com\n/x\n');
  });

  it('keeps only the named parameters of an include rule and drops those of an exclude rule', () => {
    const ctx = contextFor(config, 'http://example.com/x?utm_source=mail&id=7&page=2');
    expect(cacheKey(ctx, rule({ query_strings: { mode: 'include', names: ['page', 'id'] } }))).to.match(/\nid=7&page=2$/);
    expect(cacheKey(ctx, rule({ query_strings: { mode: 'exclude', names: ['utm_source'] } }))).to.match(/\nid=7&page=2$/);
    expect(cacheKey(ctx, rule({ query_strings: { mode: 'none' } }))).to.match(/\n\/x\n$/);
  });

  it('ignores the query when a page rule sets cache level basic', () => {
    expect(cacheKey(contextFor(config, 'http://example.com/x?v=1', { page: { cache_level: 'basic' } }), undefined)).to.equal('dom-1\nhttp\nexample.com\n/x\n');
  });

  it('adds the headers, cookies and country a rule names', () => {
    const spec = rule({ headers: ['X-Device'], cookies: ['lang'], country: true });
    const de = contextFor(config, 'http://example.com/', { headers: { 'x-device': 'mobile', cookie: 'lang=de; other=1' }, country: 'DE' });
    expect(cacheKey(de, spec)).to.equal('dom-1\nhttp\nexample.com\n/\n\nh:X-Device=mobile\nc:lang=de\ncountry=DE');
    const fr = contextFor(config, 'http://example.com/', { headers: { 'x-device': 'mobile', cookie: 'lang=de' }, country: 'FR' });
    expect(cacheKey(fr, spec)).to.not.equal(cacheKey(de, spec));
  });

  it('hashes long parts so a key stays bounded', () => {
    const key = cacheKey(contextFor(config, `http://example.com/${'a'.repeat(5000)}?${'q'.repeat(5000)}`), undefined);
    expect(key.length).to.be.below(200);
    expect(key).to.match(/\n#[0-9a-f]{64}\n#[0-9a-f]{64}$/);
  });

  it('keeps repeated parameters in their order when it sorts, whatever their spelling', () => {
    const sorted = configWith({ cache: { query_string_mode: 'sort' } });
    const key = (query: string, rule?: CacheRule) => cacheKey(contextFor(sorted, `http://example.com/x?${query}`), rule);
    expect(key('debug=1&debug=0')).to.not.equal(key('debug=0&debug=1'));
    expect(key('z=2&debug=1&debug=0')).to.match(/\ndebug=1&debug=0&z=2$/);
    // %61 is `a` to an origin: the two spellings ask for different first values of `a`.
    expect(key('a=1&%61=2')).to.not.equal(key('%61=2&a=1'));
    const include = rule({ query_strings: { mode: 'include', names: ['id'] } });
    expect(key('id=1&x=0&id=2', include)).to.match(/\nid=1&id=2$/);
    expect(key('id=2&id=1', include)).to.not.equal(key('id=1&id=2', include));
    const exclude = rule({ query_strings: { mode: 'exclude', names: ['utm'] } });
    expect(key('z=1&utm=x&z=0', exclude)).to.match(/\nz=1&z=0$/);
  });

  it('names a key by its parts and the parts by the key: the query, rule parts and variant values are the rest', () => {
    const spec = rule({ headers: ['X-Device'], query_strings: { mode: 'all' } });
    const ctx = contextFor(config, `http://www.example.com/a/b?z=1&a=2`, { headers: { 'x-device': 'mobile', 'accept-language': 'de' } });
    const parts = keyParts(ctx, spec);
    expect(parts).to.deep.equal({ domainId: 'dom-1', scheme: 'http', host: 'www.example.com', path: '/a/b', rest: '\nz=1&a=2\nh:X-Device=mobile' });
    expect(partsOfKey(keyText(parts))).to.deep.equal(parts);
    const variant = variantKey(keyText(parts), ['accept-language'], ctx);
    expect(partsOfKey(variant)).to.deep.equal({ ...parts, rest: `${parts.rest}\nvary\naccept-language=de` });
    const long = keyParts(contextFor(config, `http://example.com/${'a'.repeat(5000)}`), undefined);
    expect(partsOfKey(keyText(long))).to.deep.equal(long);
    for (const text of ['', 'k', 'a\nb', 'a\nb\nc', 'a\nb\nc\nd']) expect(partsOfKey(text), JSON.stringify(text)).to.equal(undefined);
    expect(partsOfKey('\n\n\n\n')).to.deep.equal({ domainId: '', scheme: '', host: '', path: '', rest: '\n' });
  });

  it('adds the values of the Vary headers to a variant key', () => {
    const ctx = contextFor(config, 'http://example.com/', { headers: { 'accept-encoding': 'gzip', 'accept-language': 'de' } });
    expect(variantKey('k', ['accept-encoding', 'accept-language'], ctx)).to.equal('k\nvary\naccept-encoding=gzip\naccept-language=de');
    expect(variantKey('k', ['accept-encoding'], contextFor(config, 'http://example.com/'))).to.equal('k\nvary\naccept-encoding=');
  });

  it('keys a variant on the values the origin received for the headers the edge sets, not the client\'s', () => {
    const spoofed = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9', 'x-real-ip': '203.0.113.9', 'x-forwarded-host': 'evil.test', host: 'evil.test' };
    const http = contextFor(config, 'http://example.com/', { headers: spoofed });
    const https = contextFor(config, 'https://example.com/', { scheme: 'https' });
    expect(originSaw(http, 'x-forwarded-proto')).to.equal('http');
    expect(originSaw(https, 'x-forwarded-proto')).to.equal('https');
    expect(originSaw(http, 'x-forwarded-for')).to.equal('192.0.2.1');
    expect(originSaw(http, 'x-real-ip')).to.equal('192.0.2.1');
    expect(originSaw(http, 'x-forwarded-host')).to.equal('example.com');
    expect(originSaw(http, 'host')).to.equal('example.com');
    const vary = ['x-forwarded-proto'];
    expect(variantKey('k', vary, http)).to.not.equal(variantKey('k', vary, https));
    expect(variantKey('k', vary, http)).to.equal(variantKey('k', vary, contextFor(config, 'http://example.com/')));
  });

  it('keys a variant on the shield header without its secret, whatever the client sent', () => {
    const snapshot = snapshotWith();
    snapshot.domains[0].origin_shield = { header_name: 'X-Shield', secret: 'top-secret' };
    const shielded = compileActiveConfig(snapshot, 1, 'checksum');
    const forged = contextFor(shielded, 'http://example.com/', { headers: { 'x-shield': 'forged' } });
    const plain = contextFor(shielded, 'http://example.com/');
    expect(variantKey('k', ['x-shield'], forged)).to.equal(variantKey('k', ['x-shield'], plain));
    expect(variantKey('k', ['x-shield'], plain)).to.not.include('top-secret');
    expect(originSaw(contextFor(config, 'http://example.com/', { headers: { 'x-shield': 'sent' } }), 'x-shield')).to.equal('sent');
  });
});

import { expect } from 'chai';
import { updatedHeaders, validatorsOf } from '../../../src/edge/cache/revalidation.js';
import type { CacheEntry } from '../../../src/edge/cache/types.js';
import { entry as storedEntry } from './helpers.js';

const entry = (headers: CacheEntry['headers'], marker = false): CacheEntry => storedEntry('k', 1, { headers, marker });

describe('edge cache revalidation', () => {
  it('asks with the stored ETag and Last-Modified, and not at all without them or for a Vary marker', () => {
    expect(validatorsOf(entry({ etag: '"a"', 'last-modified': 'Mon, 23 Nov 2026 10:00:00 GMT' }))).to.deep.equal({ 'if-none-match': '"a"', 'if-modified-since': 'Mon, 23 Nov 2026 10:00:00 GMT' });
    expect(validatorsOf(entry({ etag: '"a"' }))).to.deep.equal({ 'if-none-match': '"a"' });
    expect(validatorsOf(entry({ 'content-type': 'text/plain' }))).to.equal(undefined);
    expect(validatorsOf(entry({ etag: '"a"' }, true))).to.equal(undefined);
    expect(validatorsOf(undefined)).to.equal(undefined);
  });

  it('takes the headers of a 304 except those describing the body', () => {
    const stored = { 'content-type': 'text/plain', 'content-length': '1', 'cache-control': 'max-age=10', 'x-origin': 'old' };
    const updated = updatedHeaders(stored, { 'content-type': 'text/html', 'content-length': '0', 'cache-control': 'max-age=60', 'x-origin': 'new', etag: '"b"' });
    expect(updated).to.deep.equal({ 'content-type': 'text/plain', 'content-length': '1', 'cache-control': 'max-age=60', 'x-origin': 'new', etag: '"b"' });
    expect(stored['cache-control']).to.equal('max-age=10');
  });
});

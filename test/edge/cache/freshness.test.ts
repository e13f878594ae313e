import { expect } from 'chai';
import { bypassReason, decideFreshness, type FreshnessInput } from '../../../src/edge/cache/freshness.js';
import type { CacheRule } from '../../../src/edge/cache/types.js';
import { cacheSettings } from '../../../src/edge/config/cache-settings.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const settings = cacheSettings({});
const strict = { ...settings, strict_rfc9111: true };
const rule = (fields: Partial<CacheRule>): CacheRule => ({ id: 'r', name: 'r', priority: 0, match: {}, ...fields });
const input = (fields: Partial<FreshnessInput>): FreshnessInput => ({ status: 200, headers: {}, settings, rule: undefined, page: undefined, authorized: false, now: NOW, ...fields });

type Row = { name: string; input: Partial<FreshnessInput>; store: boolean; fresh?: number; swr?: number; sie?: number; age?: number; client?: string | undefined; reason?: string };

const rows: Row[] = [
  { name: 'no headers: the domain default TTL and browser TTL', input: {}, store: true, fresh: 3600, client: 'max-age=14400' },
  { name: 'max-age', input: { headers: { 'cache-control': 'max-age=60' } }, store: true, fresh: 60, client: undefined },
  { name: 's-maxage over max-age', input: { headers: { 'cache-control': 'max-age=60, s-maxage=600' } }, store: true, fresh: 600 },
  { name: 'Age taken off', input: { headers: { 'cache-control': 'max-age=60', age: '20' } }, store: true, fresh: 40 },
  { name: 'Expires minus Date', input: { headers: { date: 'Thu, 01 Jan 2026 00:00:00 GMT', expires: 'Thu, 01 Jan 2026 00:02:00 GMT' } }, store: true, fresh: 120 },
  { name: 'an invalid Expires is already expired', input: { headers: { expires: '0' } }, store: false, reason: 'ttl 0' },
  ...['2026', 'Tomorrow 1', 'Fri, 01 Jan 2027', 'Fri, 01 Jan 2027 00:00:00 UTC', 'fri, 01 jan 2027 00:00:00 GMT', 'Fri, 1 Jan 2027 00:00:00 GMT', 'Fri, 31 Feb 2027 00:00:00 GMT', 'Fri, 01 Jan 2027 24:00:00 GMT', '2027-01-01T00:00:00Z', 'Fri, 01 Jan 2027 00:00:00 GMT, Sat, 02 Jan 2027 00:00:00 GMT'].map(
    (expires): Row => ({ name: `an Expires that is not an HTTP-date (${expires}) is already expired`, input: { headers: { date: 'Sun, 01 Jun 2025 00:00:00 GMT', expires } }, store: false, reason: 'ttl 0' }),
  ),
  { name: 'an RFC 850 Expires is accepted', input: { headers: { date: 'Thu, 01 Jan 2026 00:00:00 GMT', expires: 'Thursday, 01-Jan-26 00:05:00 GMT' } }, store: true, fresh: 300 },
  { name: 'an asctime Expires is accepted', input: { headers: { date: 'Thu, 01 Jan 2026 00:00:00 GMT', expires: 'Thu Jan  1 00:06:00 2026' } }, store: true, fresh: 360 },
  { name: 'an Expires before Date is already expired', input: { headers: { date: 'Thu, 01 Jan 2026 00:10:00 GMT', expires: 'Thu, 01 Jan 2026 00:00:00 GMT' } }, store: false, reason: 'ttl 0' },
  { name: 'an invalid Date makes Expires count from now', input: { headers: { date: '2026', expires: 'Thu, 01 Jan 2026 00:01:00 GMT' } }, store: true, fresh: 60 },
  { name: 'max-age wins over Expires', input: { headers: { 'cache-control': 'max-age=30', expires: 'Thu, 01 Jan 2026 01:00:00 GMT' } }, store: true, fresh: 30 },
  { name: 'max-age with spaces around = is invalid: stale, not the default TTL', input: { headers: { 'cache-control': 'max-age = 600' } }, store: false, reason: 'ttl 0' },
  { name: 'max-age with a space after = is invalid', input: { headers: { 'cache-control': 'max-age= 600' } }, store: false, reason: 'ttl 0' },
  { name: 'a non-integer max-age is invalid', input: { headers: { 'cache-control': 'max-age=1.5' } }, store: false, reason: 'ttl 0' },
  { name: 'a negative max-age is invalid', input: { headers: { 'cache-control': 'max-age=-5' } }, store: false, reason: 'ttl 0' },
  { name: 'an invalid s-maxage is invalid even with a valid max-age', input: { headers: { 'cache-control': 's-maxage=x, max-age=60' } }, store: false, reason: 'ttl 0' },
  { name: 'a quoted max-age is accepted', input: { headers: { 'cache-control': 'max-age="45"' } }, store: true, fresh: 45 },
  { name: 'the first max-age wins', input: { headers: { 'cache-control': 'max-age=20, max-age=600' } }, store: true, fresh: 20 },
  { name: 'a quoted comma does not split directives', input: { headers: { 'cache-control': 'no-cache="set-cookie, x-a", max-age=60' } }, store: false, reason: 'no-cache' },
  { name: 'a malformed no-store still refuses', input: { headers: { 'cache-control': 'no-store junk, max-age=60' } }, store: false, reason: 'no-store' },
  { name: 'upper-case directive names count', input: { headers: { 'cache-control': 'Max-Age=70' } }, store: true, fresh: 70 },
  { name: 'an Age with a parameter is invalid (not taken off)', input: { headers: { 'cache-control': 'max-age=60', age: '20;q=1' } }, store: true, fresh: 60, age: 0 },
  { name: 'an Age with a suffix is invalid', input: { headers: { 'cache-control': 'max-age=60', age: '20s' } }, store: true, fresh: 60, age: 0 },
  { name: 'an Age older than max-age is stale', input: { headers: { 'cache-control': 'max-age=60', age: '60' } }, store: false, reason: 'ttl 0' },
  { name: 'Age counts in the current age under an explicit edge TTL too', input: { headers: { age: '20' }, rule: rule({ edge_ttl_seconds: 30 }) }, store: true, fresh: 30, age: 20 },
  { name: 'Age counts against the default TTL', input: { headers: { age: '600' } }, store: true, fresh: 3000, age: 600 },
  { name: 'a default TTL of 0 stores nothing without explicit freshness', input: { headers: { 'last-modified': 'Mon, 01 Dec 2025 00:00:00 GMT' }, settings: { ...settings, default_edge_ttl_seconds: 0 } }, store: false, reason: 'ttl 0' },
  { name: 'no-store', input: { headers: { 'cache-control': 'no-store' } }, store: false, reason: 'no-store' },
  { name: 'private', input: { headers: { 'cache-control': 'private, max-age=60' } }, store: false, reason: 'private' },
  { name: 'no-cache', input: { headers: { 'cache-control': 'no-cache' } }, store: false, reason: 'no-cache' },
  { name: 'max-age=0', input: { headers: { 'cache-control': 'max-age=0' } }, store: false, reason: 'ttl 0' },
  { name: 'origin stale directives', input: { headers: { 'cache-control': 'max-age=10, stale-while-revalidate=30, stale-if-error=300' } }, store: true, fresh: 10, swr: 30, sie: 300 },
  { name: 'must-revalidate forbids stale', input: { headers: { 'cache-control': 'max-age=10, must-revalidate, stale-if-error=300' }, settings: { ...settings, stale_while_revalidate_seconds: 5 } }, store: true, swr: 0, sie: 0 },
  { name: 's-maxage forbids stale as proxy-revalidate does', input: { headers: { 'cache-control': 's-maxage=10, stale-while-revalidate=30' }, settings: { ...settings, stale_if_error_seconds: 5 } }, store: true, fresh: 10, swr: 0, sie: 0 },
  { name: 'domain stale settings when the origin says nothing', input: { settings: { ...settings, stale_while_revalidate_seconds: 7, stale_if_error_seconds: 9 } }, store: true, swr: 7, sie: 9 },
  { name: 'origin lifetimes ignored when not respected', input: { headers: { 'cache-control': 'max-age=60' }, settings: { ...settings, respect_origin_cache_control: false } }, store: true, fresh: 3600, client: 'max-age=14400' },
  { name: 'no-store obeyed even when lifetimes are not respected', input: { headers: { 'cache-control': 'no-store' }, settings: { ...settings, respect_origin_cache_control: false } }, store: false },
  { name: 'a rule edge TTL overrides max-age and no-cache', input: { headers: { 'cache-control': 'no-cache, max-age=5' }, rule: rule({ edge_ttl_seconds: 30 }) }, store: true, fresh: 30 },
  { name: 'a rule edge TTL never stores no-store', input: { headers: { 'cache-control': 'no-store' }, rule: rule({ edge_ttl_seconds: 30 }) }, store: false, reason: 'no-store' },
  { name: 'a rule edge TTL does not store private', input: { headers: { 'cache-control': 'private, max-age=60' }, rule: rule({ edge_ttl_seconds: 30 }) }, store: false, reason: 'private' },
  { name: 'a page edge TTL does not store private', input: { headers: { 'cache-control': 'private' }, page: { edge_cache_ttl_seconds: 90 } }, store: false, reason: 'private' },
  { name: 'a rule edge TTL does not store the answer to an authorized request', input: { authorized: true, rule: rule({ edge_ttl_seconds: 30 }) }, store: false, reason: 'authorization' },
  { name: 'a page edge TTL does not store the answer to an authorized request', input: { authorized: true, page: { edge_cache_ttl_seconds: 90, cache_level: 'cache_everything' } }, store: false, reason: 'authorization' },
  { name: 'cache_private stores private under a rule edge TTL', input: { headers: { 'cache-control': 'private' }, rule: rule({ edge_ttl_seconds: 30, cache_private: true }) }, store: true, fresh: 30 },
  { name: 'cache_private stores the answer to an authorized request', input: { authorized: true, rule: rule({ edge_ttl_seconds: 30, cache_private: true }) }, store: true, fresh: 30 },
  { name: 'cache_private never stores no-store', input: { headers: { 'cache-control': 'no-store, private' }, rule: rule({ edge_ttl_seconds: 30, cache_private: true }) }, store: false, reason: 'no-store' },
  { name: 'a request with Cache-Control: no-store is not stored', input: { requestNoStore: true, rule: rule({ edge_ttl_seconds: 30 }) }, store: false, reason: 'request no-store' },
  { name: 'a page edge TTL overrides max-age', input: { headers: { 'cache-control': 'max-age=60' }, page: { edge_cache_ttl_seconds: 90 } }, store: true, fresh: 90 },
  { name: 'a rule wins over a page rule', input: { rule: rule({ edge_ttl_seconds: 30 }), page: { edge_cache_ttl_seconds: 90 } }, store: true, fresh: 30 },
  { name: 'rule stale settings win', input: { headers: { 'cache-control': 'max-age=10, stale-if-error=300' }, rule: rule({ stale_if_error_seconds: 5, stale_while_revalidate_seconds: 6 }) }, store: true, swr: 6, sie: 5 },
  { name: 'rule browser TTL', input: { headers: { 'cache-control': 'max-age=60' }, rule: rule({ browser_ttl_seconds: 10 }) }, store: true, client: 'max-age=10' },
  { name: 'page browser TTL', input: { page: { browser_cache_ttl_seconds: 20 } }, store: true, client: 'max-age=20' },
  { name: 'Set-Cookie is not stored', input: { headers: { 'set-cookie': ['a=1'] } }, store: false, reason: 'set-cookie' },
  { name: 'Set-Cookie stored under a rule edge TTL', input: { headers: { 'set-cookie': ['a=1'] }, rule: rule({ edge_ttl_seconds: 60 }) }, store: true },
  { name: 'Set-Cookie stored under cache_everything', input: { headers: { 'set-cookie': ['a=1'] }, page: { cache_level: 'cache_everything' } }, store: true },
  { name: 'Vary: * is never stored', input: { headers: { vary: 'Accept, *' }, rule: rule({ edge_ttl_seconds: 60 }) }, store: false, reason: 'vary *' },
  { name: 'a Vary naming more headers than the edge keys on is never stored', input: { headers: { vary: Array.from({ length: 40 }, (_, n) => `x-h${n}`).join(', ') }, rule: rule({ edge_ttl_seconds: 60 }) }, store: false, reason: 'vary *' },
  { name: 'a Vary with a name that is not a token is never stored', input: { headers: { vary: 'Accept, Accept Language' }, rule: rule({ edge_ttl_seconds: 60 }) }, store: false, reason: 'vary *' },
  { name: 'a Vary longer than the edge reads is never stored', input: { headers: { vary: `Accept, x-${'a'.repeat(5000)}` }, rule: rule({ edge_ttl_seconds: 60 }) }, store: false, reason: 'vary *' },
  { name: 'a Vary list with empty elements is still read', input: { headers: { vary: 'Accept, , Accept-Encoding' } }, store: true },
  { name: 'status 500', input: { status: 500 }, store: false, reason: 'status 500' },
  { name: 'status 206', input: { status: 206 }, store: false },
  { name: 'status 302', input: { status: 302 }, store: false },
  { name: 'status 404', input: { status: 404 }, store: true },
  { name: 'status 301', input: { status: 301 }, store: true },
  { name: 'authorized request, plain max-age', input: { authorized: true, headers: { 'cache-control': 'max-age=60' } }, store: false, reason: 'authorization' },
  { name: 'authorized request, public', input: { authorized: true, headers: { 'cache-control': 'public, max-age=60' } }, store: true, fresh: 60 },
  { name: 'CDN-Cache-Control wins over Cache-Control for the edge', input: { headers: { 'cdn-cache-control': 'max-age=600', 'cache-control': 'max-age=10' } }, store: true, fresh: 600, client: undefined },
  { name: 'CDN-Cache-Control: no-store refuses what Cache-Control allows', input: { headers: { 'cdn-cache-control': 'no-store', 'cache-control': 'public, max-age=600' } }, store: false, reason: 'no-store' },
  { name: 'CDN-Cache-Control stores what Cache-Control: private keeps from other shared caches', input: { headers: { 'cdn-cache-control': 'max-age=60', 'cache-control': 'private' } }, store: true, fresh: 60 },
  { name: 'CDN-Cache-Control makes Expires irrelevant', input: { headers: { 'cdn-cache-control': 'stale-if-error=30', date: 'Thu, 01 Jan 2026 00:00:00 GMT', expires: 'Thu, 01 Jan 2026 00:10:00 GMT' } }, store: true, fresh: 3600, sie: 30 },
  { name: 'an invalid CDN-Cache-Control (not a Dictionary) falls back to Cache-Control', input: { headers: { 'cdn-cache-control': 'max-age = 600', 'cache-control': 'max-age=10' } }, store: true, fresh: 10 },
  { name: 'a CDN-Cache-Control max-age that is not an integer is ignored', input: { headers: { 'cdn-cache-control': 'max-age="600", must-revalidate', 'cache-control': 'max-age=10' } }, store: true, fresh: 3600, swr: 0 },
  { name: 'CDN-Cache-Control with parameters and a false boolean', input: { headers: { 'cdn-cache-control': 'max-age=120;x=1, no-store=?0' } }, store: true, fresh: 120 },
  { name: 'the domain targeted field wins over CDN-Cache-Control', input: { headers: { 'acme-cache-control': 'max-age=900', 'cdn-cache-control': 'max-age=600' }, settings: { ...settings, targeted_cache_control_header: 'Acme-Cache-Control' } }, store: true, fresh: 900 },
  { name: 'an invalid domain targeted field falls to CDN-Cache-Control', input: { headers: { 'acme-cache-control': 'MAX-AGE=900', 'cdn-cache-control': 'max-age=600' }, settings: { ...settings, targeted_cache_control_header: 'Acme-Cache-Control' } }, store: true, fresh: 600 },
  { name: 'another CDN\'s targeted field changes nothing', input: { headers: { 'other-cdn-cache-control': 'no-store', 'cache-control': 'max-age=10' } }, store: true, fresh: 10 },
  { name: 'strict: no default TTL without explicit freshness or Last-Modified', input: { settings: strict }, store: false, reason: 'ttl 0' },
  { name: 'strict: a Last-Modified equal to Date gives no heuristic freshness', input: { headers: { date: 'Thu, 01 Jan 2026 00:00:00 GMT', 'last-modified': 'Thu, 01 Jan 2026 00:00:00 GMT' }, settings: strict }, store: false, reason: 'ttl 0' },
  { name: 'strict: heuristic freshness from a Last-Modified 1000 s before Date', input: { headers: { date: 'Thu, 01 Jan 2026 00:16:40 GMT', 'last-modified': 'Thu, 01 Jan 2026 00:00:00 GMT' }, settings: strict }, store: true, fresh: 100, client: undefined },
  { name: 'strict: heuristic freshness capped at default_edge_ttl_seconds', input: { headers: { 'last-modified': 'Mon, 01 Dec 2025 00:00:00 GMT' }, settings: strict }, store: true, fresh: 3600 },
  { name: 'strict: no heuristics when default_edge_ttl_seconds is 0', input: { headers: { 'last-modified': 'Mon, 01 Dec 2025 00:00:00 GMT' }, settings: { ...strict, default_edge_ttl_seconds: 0 } }, store: false, reason: 'ttl 0' },
  { name: 'strict: no heuristics for a status that is not heuristically cacheable', input: { status: 302, headers: { 'last-modified': 'Mon, 01 Dec 2025 00:00:00 GMT' }, settings: strict }, store: false, reason: 'status 302' },
  { name: 'strict: no heuristics when an explicit lifetime is present', input: { headers: { 'cache-control': 'max-age=0', 'last-modified': 'Mon, 01 Dec 2025 00:00:00 GMT' }, settings: strict }, store: false, reason: 'ttl 0' },
  { name: 'strict: the origin\'s Cache-Control reaches clients unchanged, browser TTLs ignored', input: { headers: { 'cache-control': 'max-age=60' }, rule: rule({ browser_ttl_seconds: 5 }), settings: strict }, store: true, fresh: 60, client: undefined },
  { name: 'strict: edge TTLs of rules and page rules are ignored', input: { headers: { 'cache-control': 'max-age=60' }, rule: rule({ edge_ttl_seconds: 5000 }), page: { edge_cache_ttl_seconds: 9000 }, settings: strict }, store: true, fresh: 60 },
  { name: 'strict: cache_private is ignored', input: { headers: { 'cache-control': 'private, max-age=60' }, rule: rule({ edge_ttl_seconds: 30, cache_private: true }), settings: strict }, store: false, reason: 'private' },
  { name: 'strict: the domain stale windows are ignored, the origin\'s kept', input: { headers: { 'cache-control': 'max-age=60, stale-if-error=20' }, settings: { ...strict, stale_while_revalidate_seconds: 50, stale_if_error_seconds: 50 } }, store: true, swr: 0, sie: 20 },
  { name: 'strict: respect_origin_cache_control false changes nothing', input: { headers: { 'cache-control': 'max-age=60' }, settings: { ...strict, respect_origin_cache_control: false } }, store: true, fresh: 60 },
  { name: 'edge TTL 0 and nothing stale', input: { rule: rule({ edge_ttl_seconds: 0 }) }, store: false, reason: 'ttl 0' },
];

describe('edge cache freshness', () => {
  for (const row of rows) {
    it(`decides: ${row.name}`, () => {
      const result = decideFreshness(input(row.input));
      expect(result.store, result.reason).to.equal(row.store);
      if (row.reason !== undefined) expect(result.reason).to.equal(row.reason);
      if (row.fresh !== undefined) expect(result.freshMs).to.equal(row.fresh * 1000);
      if (row.swr !== undefined) expect(result.swrMs).to.equal(row.swr * 1000);
      if (row.sie !== undefined) expect(result.sieMs).to.equal(row.sie * 1000);
      if (row.age !== undefined) expect(result.initialAgeSeconds).to.equal(row.age);
      if ('client' in row) expect(result.clientCacheControl).to.equal(row.client);
    });
  }

  it('bypasses the cache when disabled, in development mode, for non-GET methods and on bypass rules', () => {
    expect(bypassReason(settings, undefined, undefined, 'GET')).to.equal(undefined);
    expect(bypassReason(settings, undefined, undefined, 'HEAD')).to.equal(undefined);
    expect(bypassReason({ ...settings, caching_enabled: false }, undefined, undefined, 'GET')).to.equal('caching disabled');
    expect(bypassReason({ ...settings, development_mode: true }, undefined, undefined, 'GET')).to.equal('development mode');
    expect(bypassReason(settings, undefined, undefined, 'POST')).to.equal('method');
    expect(bypassReason(settings, rule({ action: 'bypass' }), undefined, 'GET')).to.equal('cache rule bypass');
    expect(bypassReason(settings, undefined, { cache_level: 'bypass' }, 'GET')).to.equal('page rule bypass');
    expect(bypassReason(settings, undefined, { disable_features: ['cache'] }, 'GET')).to.equal('page rule disables cache');
  });
});

import { expect } from 'chai';
import { bypassReason, decideFreshness, type FreshnessInput } from '../../../src/edge/cache/freshness.js';
import type { CacheRule } from '../../../src/edge/cache/types.js';
import { cacheSettings } from '../../../src/edge/config/cache-settings.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const settings = cacheSettings({});
const rule = (fields: Partial<CacheRule>): CacheRule => ({ id: 'r', name: 'r', priority: 0, match: {}, ...fields });
const input = (fields: Partial<FreshnessInput>): FreshnessInput => ({ status: 200, headers: {}, settings, rule: undefined, page: undefined, authorized: false, now: NOW, ...fields });

type Row = { name: string; input: Partial<FreshnessInput>; store: boolean; fresh?: number; swr?: number; sie?: number; client?: string | undefined; reason?: string };

const rows: Row[] = [
  { name: 'no headers: the domain default TTL and browser TTL', input: {}, store: true, fresh: 3600, client: 'max-age=14400' },
  { name: 'max-age', input: { headers: { 'cache-control': 'max-age=60' } }, store: true, fresh: 60, client: undefined },
  { name: 's-maxage over max-age', input: { headers: { 'cache-control': 'max-age=60, s-maxage=600' } }, store: true, fresh: 600 },
  { name: 'Age taken off', input: { headers: { 'cache-control': 'max-age=60', age: '20' } }, store: true, fresh: 40 },
  { name: 'Expires minus Date', input: { headers: { date: 'Thu, 01 Jan 2026 00:00:00 GMT', expires: 'Thu, 01 Jan 2026 00:02:00 GMT' } }, store: true, fresh: 120 },
  { name: 'an invalid Expires is already expired', input: { headers: { expires: '0' } }, store: false, reason: 'ttl 0' },
  { name: 'no-store', input: { headers: { 'cache-control': 'no-store' } }, store: false, reason: 'no-store' },
  { name: 'private', input: { headers: { 'cache-control': 'private, max-age=60' } }, store: false, reason: 'private' },
  { name: 'no-cache', input: { headers: { 'cache-control': 'no-cache' } }, store: false, reason: 'no-cache' },
  { name: 'max-age=0', input: { headers: { 'cache-control': 'max-age=0' } }, store: false, reason: 'ttl 0' },
  { name: 'origin stale directives', input: { headers: { 'cache-control': 'max-age=10, stale-while-revalidate=30, stale-if-error=300' } }, store: true, fresh: 10, swr: 30, sie: 300 },
  { name: 'must-revalidate forbids stale', input: { headers: { 'cache-control': 'max-age=10, must-revalidate, stale-if-error=300' }, settings: { ...settings, stale_while_revalidate_seconds: 5 } }, store: true, swr: 0, sie: 0 },
  { name: 'domain stale settings when the origin says nothing', input: { settings: { ...settings, stale_while_revalidate_seconds: 7, stale_if_error_seconds: 9 } }, store: true, swr: 7, sie: 9 },
  { name: 'origin lifetimes ignored when not respected', input: { headers: { 'cache-control': 'max-age=60' }, settings: { ...settings, respect_origin_cache_control: false } }, store: true, fresh: 3600, client: 'max-age=14400' },
  { name: 'no-store obeyed even when lifetimes are not respected', input: { headers: { 'cache-control': 'no-store' }, settings: { ...settings, respect_origin_cache_control: false } }, store: false },
  { name: 'a rule edge TTL overrides the origin, even no-store', input: { headers: { 'cache-control': 'no-store' }, rule: rule({ edge_ttl_seconds: 30 }) }, store: true, fresh: 30 },
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

import { expect } from 'chai';
import { TestCore, type Json } from '../../support/core.js';

describe('cache settings and purge requests', () => {
  let core: TestCore;
  let domain: Json;
  let base: string;
  before(async () => {
    core = await TestCore.start();
    domain = await core.createDomain('cache.example');
    base = `/api/v1/domains/${domain.id}/cache`;
  });
  after(async () => {
    await core.stop();
  });

  it('returns documented defaults until settings are stored', async () => {
    expect((await core.get(`${base}/settings`)).data).to.deep.include({
      caching_enabled: true,
      default_edge_ttl_seconds: 3600,
      browser_ttl_seconds: 14400,
      respect_origin_cache_control: true,
      query_string_mode: 'include',
      development_mode: false,
      customised: false,
    });
  });

  it('replaces settings on PUT: omitted fields go back to their defaults', async () => {
    const first = (await core.put(`${base}/settings`, { default_edge_ttl_seconds: 60, development_mode: true })).data;
    expect(first).to.include({ default_edge_ttl_seconds: 60, development_mode: true, customised: true });
    const second = (await core.put(`${base}/settings`, { browser_ttl_seconds: 0 })).data;
    expect(second).to.include({ default_edge_ttl_seconds: 3600, development_mode: false, browser_ttl_seconds: 0 });
    expect((await core.put(`${base}/settings`, { default_edge_ttl_seconds: -5 }, 422)).field).to.equal('default_edge_ttl_seconds');
    expect((await core.put(`${base}/settings`, { query_string_mode: 'random' }, 422)).field).to.equal('query_string_mode');
    await core.get('/api/v1/domains/missing/cache/settings', 404);
  });

  it('stores the targeted cache-control name and strict RFC 9111 mode, defaulting to none and off', async () => {
    expect((await core.get(`${base}/settings`)).data).to.deep.include({ targeted_cache_control_header: null, strict_rfc9111: false });
    const stored = (await core.put(`${base}/settings`, { targeted_cache_control_header: 'Acme-CDN-Cache-Control', strict_rfc9111: true })).data;
    expect(stored).to.include({ targeted_cache_control_header: 'Acme-CDN-Cache-Control', strict_rfc9111: true, customised: true });
    expect((await core.get(`${base}/settings`)).data).to.include({ targeted_cache_control_header: 'Acme-CDN-Cache-Control', strict_rfc9111: true });
    expect((await core.put(`${base}/settings`, {})).data).to.include({ targeted_cache_control_header: null, strict_rfc9111: false });
  });

  for (const [name, body] of [
    ['a targeted name that is not a token', { targeted_cache_control_header: 'Acme CDN-Cache-Control' }],
    ['a targeted name that would hide Cache-Control from browsers', { targeted_cache_control_header: 'Cache-Control' }],
    ['a targeted name not ending in -Cache-Control', { targeted_cache_control_header: 'Set-Cookie' }],
    ['a strict mode that is not a boolean', { strict_rfc9111: 'yes' }],
  ] as const) {
    it(`rejects ${name} with 422`, async () => {
      const field = Object.keys(body)[0];
      expect((await core.put(`${base}/settings`, body, 422)).field).to.equal(field);
    });
  }

  it('queues purges of each scope with normalised values', async () => {
    const url = (await core.post(`${base}/purge`, { scope: 'url', value: 'https://www.cache.example/a.css#frag' }, 201)).data;
    expect(url).to.include({ scope: 'url', value: 'https://www.cache.example/a.css', status: 'queued', requested_by: 'anonymous' });
    expect((await core.post(`${base}/purge`, { scope: 'prefix', value: '/images/' }, 201)).data.value).to.equal('/images/');
    expect((await core.post(`${base}/purge`, { scope: 'domain' }, 201)).data.value).to.equal('cache.example');
    expect((await core.post(`${base}/purge`, { scope: 'domain', value: 'Static.Cache.Example' }, 201)).data.value).to.equal('static.cache.example');
    expect((await core.post(`${base}/purge`, { scope: 'everything' }, 201)).data.value).to.equal(null);
  });

  for (const [body, field] of [
    [{ scope: 'url' }, 'value'],
    [{ scope: 'prefix', value: '' }, 'value'],
    [{ scope: 'url', value: 'https://other.example/a' }, 'value'],
    [{ scope: 'url', value: 'ftp://cache.example/a' }, 'value'],
    [{ scope: 'url', value: 'not a url' }, 'value'],
    [{ scope: 'domain', value: 'other.example' }, 'value'],
    [{ scope: 'everything', value: '/x' }, 'value'],
    [{ scope: 'all' }, 'scope'],
  ] as const) {
    it(`rejects the purge ${JSON.stringify(body)} with 422 on ${field}`, async () => {
      const before = await core.db.purgeRequest.count();
      expect((await core.post(`${base}/purge`, body, 422)).field).to.equal(field);
      expect(await core.db.purgeRequest.count()).to.equal(before);
    });
  }

  it('lists purge requests newest first and gets one with its acknowledgements', async () => {
    const list = (await core.get(`${base}/purge-requests?limit=2`)).data;
    expect(list).to.have.length(2);
    expect(list[0].created_at).to.be.at.least(list[1].created_at);
    const one = (await core.get(`${base}/purge-requests/${list[0].id}`)).data;
    expect(one).to.include({ id: list[0].id, status: 'queued' });
    expect(one.acknowledged_by).to.deep.equal([]);
    await core.get(`${base}/purge-requests/missing`, 404);
  });
});

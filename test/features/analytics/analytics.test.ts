import { expect } from 'chai';
import { TestCore, type Json } from '../../support/core.js';

const HOUR = 3600 * 1000;

describe('usage and cache analytics', () => {
  let core: TestCore;
  let shop: Json;
  let blog: Json;
  const now = Date.now();
  const hourStart = (offset: number) => new Date(Math.floor((now - offset * HOUR) / HOUR) * HOUR);

  before(async () => {
    core = await TestCore.start();
    shop = await core.createDomain('shop.analytics.example');
    blog = await core.createDomain('blog.analytics.example');
    // Raw events as the collector stores them: two hours of shop traffic, one of blog traffic.
    const events = [
      ...Array.from({ length: 6 }, (_, i) => ({ domain_id: shop.id, domain: shop.domain, status: 200, bytes: 1000, cache_status: i < 4 ? 'HIT' : 'MISS', client_country: i < 4 ? 'DE' : 'FR', occurred_at: new Date(hourStart(1).getTime() + 60000 * i) })),
      { domain_id: shop.id, domain: shop.domain, status: 503, bytes: 100, cache_status: 'MISS', occurred_at: new Date(hourStart(2).getTime() + 1000) },
      { domain_id: shop.id, domain: shop.domain, status: 404, bytes: 200, cache_status: 'stale', occurred_at: new Date(hourStart(2).getTime() + 2000) },
      { domain_id: blog.id, domain: blog.domain, status: 301, bytes: 50, cache_status: 'BYPASS', occurred_at: new Date(hourStart(1).getTime() + 5000) },
    ];
    await core.db.usageEvent.createMany({ data: events.map((event) => ({ ...event, edge_id: 'edge-1', path: '/' })) });
    // An old day aggregate, older than any raw event: a recalculation must keep it.
    await core.db.usageAggregate.create({ data: { bucket: 'day', bucket_start: new Date(now - 60 * 24 * HOUR), domain_id: shop.id, requests: 99n, bytes: 990n } });
  });
  after(async () => {
    await core.stop();
  });

  it('rebuilds minute, hour and day aggregates from raw events', async () => {
    const result = (await core.post('/api/v1/usage/recalculate', {})).data;
    expect(result.buckets.map((bucket: Json) => bucket.bucket)).to.deep.equal(['minute', 'hour', 'day']);
    expect(result.buckets.every((bucket: Json) => bucket.events === 9)).to.equal(true);
    expect(await core.db.usageAggregate.count({ where: { bucket: 'hour' } })).to.equal(3);
    expect(await core.db.usageAggregate.count({ where: { bucket: 'day', requests: 99n } })).to.equal(1);
  });

  it('recalculates one bucket for one domain only', async () => {
    const result = (await core.post('/api/v1/usage/recalculate', { bucket: 'hour', domain_id: blog.id })).data;
    expect(result.buckets).to.have.length(1);
    expect(result.buckets[0]).to.include({ bucket: 'hour', events: 1, rows: 1 });
    await core.post('/api/v1/usage/recalculate', { bucket: 'week' }, 422);
    await core.post('/api/v1/usage/recalculate', { domain_id: 'missing' }, 404);
  });

  it('summarises usage by hour with status classes and the busiest domains', async () => {
    const summary = (await core.get('/api/v1/usage/summary?bucket=hour')).data;
    expect(summary.totals).to.include({ requests: 9, bytes: 6350, cached_requests: 5, status_2xx: 6, status_3xx: 1, status_4xx: 1, status_5xx: 1 });
    expect(summary.series).to.have.length(2);
    expect(summary.top_domains[0]).to.deep.equal({ domain_id: shop.id, requests: 8, bytes: 6300 });
    expect(summary, 'countries are counted from raw events, for one domain only').to.not.have.property('top_countries');
    const domainSummary = (await core.get(`/api/v1/domains/${shop.id}/analytics/summary?bucket=minute&from=${Math.floor((now - 3 * HOUR) / 1000)}`)).data;
    expect(domainSummary.totals.requests).to.equal(8);
    expect(domainSummary.series).to.have.length(7);
    expect(domainSummary).to.not.have.property('top_domains');
    expect(domainSummary.top_countries).to.deep.equal([
      { country: 'DE', requests: 4 },
      { country: 'FR', requests: 2 },
      { country: 'unknown', requests: 2 },
    ]);
  });

  it('computes cache hit ratios by requests and bytes, overall and per bucket', async () => {
    const cache = (await core.get(`/api/v1/domains/${shop.id}/analytics/cache`)).data;
    expect(cache).to.include({ requests: 8, cached_requests: 5, hit_ratio: 0.625, bytes: 6300, cached_bytes: 4200, origin_bytes: 2100, byte_hit_ratio: 0.6667 });
    expect(cache.series.map((point: Json) => point.hit_ratio)).to.deep.equal([0.5, 0.6667]);
    const all = (await core.get(`/api/v1/analytics/cache?domain_id=${blog.id}`)).data;
    expect(all).to.include({ domain_id: blog.id, requests: 1, hit_ratio: 0 });
    const empty = (await core.get('/api/v1/analytics/cache?bucket=day&from=0&to=86400')).data;
    expect(empty).to.include({ requests: 0, hit_ratio: null });
  });

  it('counts each raw event as its count of requests in top countries and recalculations', async () => {
    const bulk = await core.createDomain('bulk.analytics.example');
    const at = new Date(hourStart(1).getTime() + 1000);
    const row = (country: string, count: number, status = 200, cache_status = 'HIT') => ({ domain_id: bulk.id, domain: bulk.domain, edge_id: 'edge-1', path: '/', status, bytes: 10 * count, count, cache_status, client_country: country, occurred_at: at });
    await core.db.usageEvent.createMany({ data: [row('DE', 500), row('FR', 1), row('FR', 1), row('FR', 1, 404, 'MISS')] });
    const result = (await core.post('/api/v1/usage/recalculate', { bucket: 'hour', domain_id: bulk.id })).data;
    expect(result.buckets[0]).to.include({ events: 4, requests: 503, rows: 1 });
    const [aggregate] = await core.db.usageAggregate.findMany({ where: { bucket: 'hour', domain_id: bulk.id } });
    expect(aggregate).to.deep.include({ requests: 503n, bytes: 5030n, cached_requests: 502n, cached_bytes: 5020n, status_2xx: 502n, status_4xx: 1n, status_5xx: 0n });
    const summary = (await core.get(`/api/v1/domains/${bulk.id}/analytics/summary?bucket=hour`)).data;
    expect(summary.top_countries).to.deep.equal([
      { country: 'DE', requests: 500 },
      { country: 'FR', requests: 3 },
    ]);
  });

  it('rejects bad windows with 422 and unknown domains with 404', async () => {
    expect((await core.get('/api/v1/usage/summary?bucket=year', 422)).field).to.equal('bucket');
    expect((await core.get('/api/v1/usage/summary?from=10&to=5', 422)).field).to.equal('from');
    expect((await core.get('/api/v1/usage/summary?bucket=minute&from=0', 422)).field).to.equal('bucket');
    expect((await core.get('/api/v1/usage/summary?from=abc', 422)).field).to.equal('from');
    await core.get('/api/v1/analytics/cache?domain_id=missing', 404);
    await core.get('/api/v1/domains/missing/analytics/summary', 404);
  });
});

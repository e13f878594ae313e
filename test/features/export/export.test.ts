import { expect } from 'chai';
import { TestCore, type Json } from '../../support/core.js';

describe('bulk domain export', () => {
  let core: TestCore;
  let domain: Json;
  before(async () => {
    core = await TestCore.start();
    domain = await core.createDomain('export.example');
    const base = `/api/v1/domains/${domain.id}`;
    const record = (await core.post(`${base}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.1', proxied: true }, 201)).data;
    await core.put(`${base}/dns/records/${record.id}/geo-routes`, { routes: [{ scope: 'country', code: 'DE', target: '192.0.2.2' }, { scope: 'default', target: '192.0.2.1' }] });
    await core.post(`${base}/origins`, { host: 'origin.export.example' }, 201);
    await core.post(`${base}/redirects`, { name: 'r', target: '/x' }, 201);
    await core.put(`${base}/rate-limit`, { requests: 5, period_seconds: 10 });
    await core.createDomain('second.export.example');
  });
  after(async () => {
    await core.stop();
  });

  it('returns each domain exactly as the per-resource endpoints show it', async () => {
    const [item] = (await core.get('/api/v1/export/domains?limit=1')).data;
    const base = `/api/v1/domains/${domain.id}`;
    expect(item.domain).to.deep.equal((await core.get(base)).data);
    expect(item.records).to.deep.equal((await core.get(`${base}/dns/records`)).data);
    expect(item.origins).to.deep.equal((await core.get(`${base}/origins`)).data);
    expect(item.routing).to.deep.equal((await core.get(`${base}/routing`)).data);
    expect(item.cache).to.deep.equal((await core.get(`${base}/cache/settings`)).data);
    expect(item.ssl).to.deep.equal((await core.get(`${base}/ssl`)).data.settings);
    expect(item.rules.redirects).to.deep.equal((await core.get(`${base}/redirects`)).data);
    expect(item.rules['rate-limits']).to.have.length(1);
    expect(Object.keys(item.rules)).to.deep.equal(['redirects', 'rate-limits', 'waf-rules', 'headers', 'ip-rules', 'cache-rules', 'page-rules']);
    const recordId = item.records[0].id;
    expect(item.geo_routes).to.deep.equal([{ record_id: recordId, routes: (await core.get(`${base}/dns/records/${recordId}/geo-routes`)).data }]);
  });

  it('pages through domains and checks paging parameters', async () => {
    expect((await core.get('/api/v1/export/domains?limit=1&offset=1')).data.map((item: Json) => item.domain.domain)).to.deep.equal(['second.export.example']);
    expect((await core.get('/api/v1/export/domains?limit=501', 422)).field).to.equal('limit');
  });
});

import { expect } from 'chai';
import { TestCore, type Json } from '../../support/core.js';

describe('routing, geo routes and routing preview', () => {
  let core: TestCore;
  let domain: Json;
  let base: string;
  before(async () => {
    core = await TestCore.start();
    domain = await core.createDomain('routing.example');
    base = `/api/v1/domains/${domain.id}`;
  });
  after(async () => {
    await core.stop();
  });

  const record = async (type: string, name: string, content: string) => (await core.post(`${base}/dns/records`, { type, name, content, proxied: type !== 'TXT' }, 201)).data;

  it('reads and updates routing settings with normalised anycast lists', async () => {
    expect((await core.get(`${base}/routing`)).data).to.include({ routing_mode: 'geo', geo_health_port: null });
    const updated = (await core.patch(`${base}/routing`, { routing_mode: 'anycast', anycast_ipv4: '192.0.2.1, 192.0.2.2\n192.0.2.1', anycast_ipv6: '2001:DB8::1 2001:db8::2', geo_health_port: 8080 })).data;
    expect(updated).to.include({ routing_mode: 'anycast', geo_health_port: 8080 });
    expect(updated.anycast_ipv4).to.deep.equal(['192.0.2.1', '192.0.2.2']);
    expect(updated.anycast_ipv6).to.deep.equal(['2001:db8::1', '2001:db8::2']);
  });

  it('rejects bad routing settings with 422 naming the field', async () => {
    expect((await core.patch(`${base}/routing`, { geo_health_port: 80 }, 422)).field).to.equal('routing_mode');
    expect((await core.patch(`${base}/routing`, { routing_mode: 'round_robin' }, 422)).field).to.equal('routing_mode');
    expect((await core.patch(`${base}/routing`, { routing_mode: 'geo', geo_health_port: 0 }, 422)).field).to.equal('geo_health_port');
    expect((await core.patch(`${base}/routing`, { routing_mode: 'geo', anycast_ipv4: '192.0.2.1, 2001:db8::1' }, 422)).field).to.equal('anycast_ipv4');
    await core.get('/api/v1/domains/missing/routing', 404);
  });

  it('refuses anycast mode when no anycast address exists anywhere', async () => {
    const bare = await core.createDomain('bare-routing.example');
    expect((await core.patch(`/api/v1/domains/${bare.id}/routing`, { routing_mode: 'anycast' }, 422)).field).to.equal('anycast_ipv4');
    await core.put('/api/v1/admin/edge-network/anycast', { anycast_ipv4: '198.51.100.1' });
    expect((await core.patch(`/api/v1/domains/${bare.id}/routing`, { routing_mode: 'anycast' })).data.platform_anycast_ipv4).to.deep.equal(['198.51.100.1']);
    await core.put('/api/v1/admin/edge-network/anycast', { anycast_ipv4: null });
  });

  it('replaces geo routes, switches the record to geo routing and previews answers', async () => {
    const www = await record('A', 'www', '192.0.2.10');
    const routes = [
      { scope: 'country', code: 'de', target: '192.0.2.20' },
      { scope: 'continent', code: 'EU', target: '192.0.2.30' },
      { scope: 'region', code: 'US-CA', target: '192.0.2.40' },
      { scope: 'default', target: '192.0.2.50' },
    ];
    const stored = (await core.put(`${base}/dns/records/${www.id}/geo-routes`, { routes })).data;
    expect(stored.map((route: Json) => [route.scope, route.code, route.target])).to.deep.equal([
      ['country', 'DE', '192.0.2.20'],
      ['continent', 'EU', '192.0.2.30'],
      ['region', 'US-CA', '192.0.2.40'],
      ['default', null, '192.0.2.50'],
    ]);
    expect((await core.get(`${base}/dns/records`)).data.find((r: Json) => r.id === www.id).routing_policy).to.equal('geo');
    const preview = async (where: Json) => (await core.post(`${base}/dns/records/${www.id}/preview-routing`, where)).data;
    expect(await preview({ country: 'DE' })).to.deep.include({ answer: '192.0.2.20', matched: { scope: 'country', code: 'DE' } });
    expect(await preview({ country: 'FR' })).to.deep.include({ answer: '192.0.2.30', matched: { scope: 'continent', code: 'EU' } });
    expect(await preview({ region: 'US-CA' })).to.deep.include({ answer: '192.0.2.40' });
    expect(await preview({ country: 'JP' })).to.deep.include({ answer: '192.0.2.50', matched: { scope: 'default', code: null } });
    expect((await core.post(`${base}/dns/records/${www.id}/preview-routing`, undefined)).data.answer).to.equal('192.0.2.50');
    expect((await core.get(`${base}/dns/records/${www.id}/geo-routes`)).data).to.have.length(4);
    await core.put(`${base}/dns/records/${www.id}/geo-routes`, { routes: [] });
    expect((await preview({ country: 'DE' })).answer).to.equal('192.0.2.10');
  });

  it('validates geo routes: codes per scope, one default, targets per record type', async () => {
    const api = await record('A', 'api', '192.0.2.11');
    const put = (routes: Json[]) => core.put(`${base}/dns/records/${api.id}/geo-routes`, { routes }, 422);
    expect((await put([{ scope: 'country', code: 'XX', target: '192.0.2.1' }, { scope: 'default', target: '192.0.2.1' }])).field).to.equal('routes.0.code');
    expect((await put([{ scope: 'continent', code: 'EUR', target: '192.0.2.1' }, { scope: 'default', target: '192.0.2.1' }])).field).to.equal('routes.0.code');
    expect((await put([{ scope: 'region', code: 'ZZ-1', target: '192.0.2.1' }, { scope: 'default', target: '192.0.2.1' }])).field).to.equal('routes.0.code');
    expect((await put([{ scope: 'country', code: 'DE', target: '192.0.2.1' }])).field).to.equal('routes');
    expect((await put([{ scope: 'default', target: '192.0.2.1' }, { scope: 'default', target: '192.0.2.2' }])).field).to.equal('routes');
    expect((await put([{ scope: 'country', code: 'DE', target: '2001:db8::1' }, { scope: 'default', target: '192.0.2.1' }])).field).to.equal('routes.0.target');
    expect((await put([{ scope: 'country', code: 'DE', target: '192.0.2.1' }, { scope: 'country', code: 'de', target: '192.0.2.2' }, { scope: 'default', target: '192.0.2.1' }])).field).to.equal('routes.1.code');
    expect((await put([{ scope: 'default', code: 'DE', target: '192.0.2.1' }])).field).to.equal('routes.0.code');
    const txt = await record('TXT', 'note', 'hello');
    expect((await core.put(`${base}/dns/records/${txt.id}/geo-routes`, { routes: [] }, 422)).field).to.equal('routes');
    await core.put(`${base}/dns/records/missing/geo-routes`, { routes: [] }, 404);
    await core.post(`${base}/dns/records/${api.id}/preview-routing`, { country: 'Germany' }, 422);
  });
});

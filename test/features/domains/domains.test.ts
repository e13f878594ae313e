import { expect } from 'chai';
import { TestCore } from '../../support/core.js';

describe('domains API', () => {
  let core: TestCore;
  before(async () => {
    core = await TestCore.start();
  });
  after(async () => {
    await core.stop();
  });

  it('creates a pending domain with a normalised apex and the platform nameservers', async () => {
    const domain = await core.createDomain('Shop.Example.COM.');
    expect(domain).to.include({ domain: 'shop.example.com', name: 'shop.example.com', zone_name: 'shop.example.com', status: 'pending_nameserver' });
    expect(domain.id).to.be.a('string');
    expect(domain.created_at).to.be.a('number').and.to.be.closeTo(Date.now() / 1000, 60);
    expect(domain.expected_nameservers).to.deep.equal(['ns1.cdn.localhost', 'ns2.cdn.localhost']);
  });

  it('converts an IDN apex to punycode', async () => {
    const domain = await core.createDomain('bücher.example');
    expect(domain.domain).to.equal('xn--bcher-kva.example');
  });

  it('rejects a duplicate domain with 422 on field domain', async () => {
    await core.createDomain('dup.example');
    const error = await core.post('/api/v1/domains', { domain: 'DUP.example.' }, 422);
    expect(error).to.include({ field: 'domain' });
    expect(error.error).to.be.a('string');
  });

  for (const bad of ['localhost', 'a..example', '-bad.example', '1.2.3.4', "x.example'; DROP TABLE domains;--", 'a'.repeat(64) + '.example']) {
    it(`rejects the apex ${JSON.stringify(bad.slice(0, 40))} with 422 and changes nothing`, async () => {
      const before = await core.rowCounts();
      const error = await core.post('/api/v1/domains', { domain: bad }, 422);
      expect(error.field).to.equal('domain');
      expect(await core.rowCounts()).to.deep.equal(before);
    });
  }

  it('rejects unknown fields, wrong types and over-long strings with 422 naming the field', async () => {
    expect((await core.post('/api/v1/domains', { domain: 'a.example', colour: 'red' }, 422)).field).to.equal('colour');
    expect((await core.post('/api/v1/domains', { domain: 42 }, 422)).field).to.equal('domain');
    expect((await core.post('/api/v1/domains', { domain: 'a.example', name: 'n'.repeat(256) }, 422)).field).to.equal('name');
    expect((await core.post('/api/v1/domains', {}, 422)).field).to.equal('domain');
  });

  it('never returns origin_shield_secret, only whether it is set', async () => {
    const domain = await core.createDomain('shield.example', { origin_shield_header_name: 'X-Shield', origin_shield_secret: 's3cret-value' });
    expect(domain).to.not.have.property('origin_shield_secret');
    expect(domain.origin_shield_secret_set).to.equal(true);
    const fetched = (await core.get(`/api/v1/domains/${domain.id}`)).data;
    expect(JSON.stringify(fetched)).to.not.include('s3cret-value');
    const audit = await core.get('/api/v1/audit?limit=500');
    expect(JSON.stringify(audit)).to.not.include('s3cret-value');
  });

  it('gets, patches and lists domains', async () => {
    const domain = await core.createDomain('patch.example');
    const patched = (await core.patch(`/api/v1/domains/${domain.id}`, { display_name: 'Patch Shop', name: 'patch' })).data;
    expect(patched).to.include({ display_name: 'Patch Shop', name: 'patch' });
    expect((await core.get(`/api/v1/domains/${domain.id}`)).data.display_name).to.equal('Patch Shop');
    const list = (await core.get('/api/v1/domains?limit=500')).data;
    expect(list.map((d: { id: string }) => d.id)).to.include(domain.id);
  });

  it('pages the list with limit and offset and rejects out-of-range values', async () => {
    const all = (await core.get('/api/v1/domains?limit=500')).data;
    const second = (await core.get('/api/v1/domains?limit=1&offset=1')).data;
    expect(second).to.have.length(1);
    expect(second[0].id).to.equal(all[1].id);
    for (const query of ['limit=0', 'limit=501', 'limit=abc', 'offset=-1', 'limit=1.5']) {
      expect((await core.get(`/api/v1/domains?${query}`, 422)).field).to.equal(query.split('=')[0]);
    }
  });

  it('finds domains by part of their name and by status, and refuses a malformed filter naming it', async () => {
    const shop = await core.createDomain('filter-shop.example');
    await core.createDomain('filter-blog.example');
    await core.patch(`/api/v1/domains/${shop.id}`, { status: 'disabled' });
    const named = (await core.get('/api/v1/domains?q=FILTER-&limit=500')).data.map((domain: { domain: string }) => domain.domain);
    expect(named).to.have.members(['filter-shop.example', 'filter-blog.example']);
    const disabled = (await core.get('/api/v1/domains?q=filter&status=disabled')).data.map((domain: { domain: string }) => domain.domain);
    expect(disabled).to.deep.equal(['filter-shop.example']);
    expect((await core.get('/api/v1/domains?q=no-such-domain-here')).data).to.deep.equal([]);
    for (const [query, field] of [['q=a%25b', 'q'], ['q=a_b', 'q'], ['q=%00', 'q'], [`q=${'a'.repeat(254)}`, 'q'], ['status=gone', 'status'], ['q=a&q=b', 'q']]) {
      expect((await core.get(`/api/v1/domains?${query}`, 422)).field, query).to.equal(field);
    }
  });

  it('moving the apex sends an active domain back to pending_nameserver', async () => {
    const domain = await core.createDomain('move.example');
    await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true });
    const moved = (await core.patch(`/api/v1/domains/${domain.id}`, { domain: 'moved.example' })).data;
    expect(moved).to.include({ domain: 'moved.example', zone_name: 'moved.example', status: 'pending_nameserver' });
  });

  it('rejects a PATCH to an apex another domain has with 422 on domain', async () => {
    const a = await core.createDomain('first.example');
    await core.createDomain('second.example');
    expect((await core.patch(`/api/v1/domains/${a.id}`, { domain: 'second.example' }, 422)).field).to.equal('domain');
  });

  it('allows disabling and re-enabling through status but not activating by PATCH', async () => {
    const domain = await core.createDomain('status.example');
    expect((await core.patch(`/api/v1/domains/${domain.id}`, { status: 'disabled' })).data.status).to.equal('disabled');
    expect((await core.patch(`/api/v1/domains/${domain.id}`, { status: 'active' }, 422)).field).to.equal('status');
    expect((await core.patch(`/api/v1/domains/${domain.id}`, { status: 'bogus' }, 422)).field).to.equal('status');
    expect((await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true }, 422)).field).to.equal('status');
    expect((await core.patch(`/api/v1/domains/${domain.id}`, { status: 'pending_nameserver' })).data.status).to.equal('pending_nameserver');
  });

  it('answers 404 for an unknown domain id on every domain endpoint', async () => {
    const id = 'does-not-exist';
    await core.get(`/api/v1/domains/${id}`, 404);
    await core.patch(`/api/v1/domains/${id}`, { name: 'x' }, 404);
    await core.delete(`/api/v1/domains/${id}`, 404);
    await core.post(`/api/v1/domains/${id}/verify-nameservers`, undefined, 404);
    await core.post(`/api/v1/domains/${id}/activate`, {}, 404);
  });

  it('deleting a domain deletes its records and origins', async () => {
    const domain = await core.createDomain('cascade.example');
    await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.1' }, 201);
    await core.post(`/api/v1/domains/${domain.id}/origins`, { host: 'origin.cascade.example' }, 201);
    expect(await core.delete(`/api/v1/domains/${domain.id}`)).to.deep.equal({ ok: true });
    await core.get(`/api/v1/domains/${domain.id}`, 404);
    expect(await core.db.dnsRecord.count({ where: { domain_id: domain.id } })).to.equal(0);
    expect(await core.db.origin.count({ where: { domain_id: domain.id } })).to.equal(0);
  });

  it('reflects a write made by another core replica in the next list (cached pages are versioned)', async () => {
    const domain = await core.createDomain('replica.example');
    const before = (await core.get('/api/v1/domains?limit=500')).data.find((d: { id: string }) => d.id === domain.id);
    expect(before.display_name).to.equal(null);
    await core.db.domain.update({ where: { id: domain.id }, data: { display_name: 'written elsewhere' } });
    const after = (await core.get('/api/v1/domains?limit=500')).data.find((d: { id: string }) => d.id === domain.id);
    expect(after.display_name).to.equal('written elsewhere');
    await core.db.domainNameserver.create({ data: { domain_id: domain.id, kind: 'observed', hostname: 'ns.elsewhere.example' } });
    const withNameserver = (await core.get('/api/v1/domains?limit=500')).data.find((d: { id: string }) => d.id === domain.id);
    expect(withNameserver.observed_nameservers).to.deep.equal(['ns.elsewhere.example']);
  });

  it('lists each domain exactly as GET returns it', async () => {
    const list = (await core.get('/api/v1/domains?limit=500')).data;
    for (const item of list.slice(0, 5)) expect((await core.get(`/api/v1/domains/${item.id}`)).data).to.deep.equal(item);
  });
});

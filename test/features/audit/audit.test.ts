import { expect } from 'chai';
import { TestCore } from '../../support/core.js';

describe('audit log', () => {
  let core: TestCore;
  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_ADMIN_USER: '1', CDN_BOOTSTRAP_ADMIN_USERNAME: 'admin', CDN_BOOTSTRAP_ADMIN_PASSWORD: 'admin-password' });
  });
  after(async () => {
    await core.stop();
  });

  const latest = async () => (await core.get('/api/v1/audit?limit=1')).data[0];

  it('records a create with actor, action, target, request id and integer time', async () => {
    const domain = (await core.post('/api/v1/domains', { domain: 'audited.example' }, 201, { headers: { 'x-request-id': 'req-audit-1' } })).data;
    const event = await latest();
    expect(event).to.include({ actor: 'anonymous', actor_type: 'anonymous', action: 'domain.create', target_type: 'domain', target_id: domain.id, domain_id: domain.id, request_id: 'req-audit-1' });
    expect(event.id).to.be.a('string');
    expect(event.created_at).to.be.a('number').and.closeTo(Date.now() / 1000, 60);
    expect(event.detail).to.deep.equal({ body: { domain: 'audited.example' } });
  });

  it('names the admin who made a change through a session', async () => {
    const token = (await core.post('/api/v1/admin/login', { username: 'admin', password: 'admin-password' })).data.token;
    expect(await latest()).to.include({ action: 'admin.login', actor: 'admin' });
    const domain = (await core.post('/api/v1/domains', { domain: 'by-admin.example' }, 201, { token })).data;
    await core.patch(`/api/v1/domains/${domain.id}`, { display_name: 'By admin' }, 200, { token });
    expect(await latest()).to.include({ action: 'domain.update', actor: 'admin', actor_type: 'admin', target_id: domain.id });
    await core.post('/api/v1/admin/logout', undefined, 200, { token });
    expect(await latest()).to.include({ action: 'admin.logout', actor: 'admin' });
  });

  it('records deletes of records, origins and domains', async () => {
    const domain = await core.createDomain('deleted.example');
    const record = (await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: '@', content: '192.0.2.10' }, 201)).data;
    const origin = (await core.post(`/api/v1/domains/${domain.id}/origins`, { host: 'origin.deleted.example' }, 201)).data;
    await core.delete(`/api/v1/domains/${domain.id}/dns/records/${record.id}`);
    expect(await latest()).to.include({ action: 'dns_record.delete', target_id: record.id, domain_id: domain.id });
    await core.delete(`/api/v1/domains/${domain.id}/origins/${origin.id}`);
    expect(await latest()).to.include({ action: 'origin.delete', target_id: origin.id, domain_id: domain.id });
    await core.delete(`/api/v1/domains/${domain.id}`);
    expect(await latest()).to.include({ action: 'domain.delete', target_id: domain.id });
  });

  it('writes nothing for a rejected change', async () => {
    const before = await core.db.auditEvent.count();
    await core.post('/api/v1/domains', { domain: 'not a domain' }, 422);
    await core.patch('/api/v1/domains/missing', { name: 'x' }, 404);
    expect(await core.db.auditEvent.count()).to.equal(before);
  });

  it('redacts secrets in the recorded body', async () => {
    await core.createDomain('secret.example', { origin_shield_secret: 'hunter2-hunter2' });
    const event = await latest();
    expect(event.detail.body).to.deep.equal({ domain: 'secret.example', origin_shield_secret: '[redacted]' });
  });

  it('lists newest first with limit and offset, and filters by domain', async () => {
    const all = (await core.get('/api/v1/audit?limit=500')).data;
    const ids = all.map((event: { id: string }) => Number(event.id));
    expect(ids).to.deep.equal([...ids].sort((a, b) => b - a));
    expect((await core.get('/api/v1/audit?limit=2&offset=1')).data.map((event: { id: string }) => event.id)).to.deep.equal([all[1].id, all[2].id]);
    const domainId = all.find((event: { action: string }) => event.action === 'domain.create').domain_id;
    const filtered = (await core.get(`/api/v1/audit?domain_id=${domainId}`)).data;
    expect(filtered.length).to.be.greaterThan(0);
    expect(filtered.every((event: { domain_id: string }) => event.domain_id === domainId)).to.equal(true);
    expect((await core.get('/api/v1/audit?limit=501', 422)).field).to.equal('limit');
  });
});

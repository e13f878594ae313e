import { expect } from 'chai';
import { TestCore, type Json } from '../../support/core.js';

type Event = { id: string; actor: string; action: string; target_type: string; target_id: string | null; target_name: string | null; domain_name: string | null; created_at: number };

describe('audit log: target names and search', () => {
  let core: TestCore;
  let admin: string;
  const ids: Record<string, string> = {};

  const events = async (query = ''): Promise<Event[]> => (await core.get(`/api/v1/audit?limit=500${query ? `&${query}` : ''}`)).data;
  const named = (list: Event[]) => list.map((event) => [event.action, event.target_name, event.domain_name]);

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_ADMIN_USER: '1', CDN_BOOTSTRAP_ADMIN_USERNAME: 'Auditor', CDN_BOOTSTRAP_ADMIN_PASSWORD: 'auditor-password' });
    admin = (await core.post('/api/v1/admin/login', { username: 'Auditor', password: 'auditor-password' })).data.token;
    const shop = await core.createDomain('shop.example');
    ids.shop = shop.id;
    ids.www = (await core.post(`/api/v1/domains/${shop.id}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.10' }, 201)).data.id;
    ids.apex = (await core.post(`/api/v1/domains/${shop.id}/dns/records`, { type: 'MX', name: '@', content: '10 mx.mail.example' }, 201)).data.id;
    ids.origin = (await core.post(`/api/v1/domains/${shop.id}/origins`, { host: 'origin.shop.example' }, 201)).data.id;
    ids.rule = (await core.post(`/api/v1/domains/${shop.id}/redirects`, { name: 'fonts | cors', match: { paths: [{ kind: 'prefix', value: '/old/' }] }, target: '/new/' }, 201)).data.id;
    const gone = await core.createDomain('gone.example');
    ids.gone = gone.id;
    ids.goneRecord = (await core.post(`/api/v1/domains/${gone.id}/dns/records`, { type: 'TXT', name: '_dmarc', content: 'v=DMARC1; p=none' }, 201, { token: admin })).data.id;
    await core.delete(`/api/v1/domains/${gone.id}/dns/records/${ids.goneRecord}`, 200, { token: admin });
    await core.delete(`/api/v1/domains/${shop.id}/redirects/${ids.rule}`);
    await core.delete(`/api/v1/domains/${shop.id}/origins/${ids.origin}`);
    await core.delete(`/api/v1/domains/${gone.id}`, 200, { token: admin });
  });
  after(async () => {
    await core.stop();
  });

  it('names every target and its domain as they were, deleted ones included', async () => {
    expect(named((await events()).filter((event) => event.action !== 'admin.login').reverse())).to.deep.equal([
      ['domain.create', 'shop.example', 'shop.example'],
      ['dns_record.create', 'A www.shop.example', 'shop.example'],
      ['dns_record.create', 'MX shop.example', 'shop.example'],
      ['origin.create', 'origin.shop.example', 'shop.example'],
      ['redirect.create', 'fonts | cors', 'shop.example'],
      ['domain.create', 'gone.example', 'gone.example'],
      ['dns_record.create', 'TXT _dmarc.gone.example', 'gone.example'],
      ['dns_record.delete', 'TXT _dmarc.gone.example', 'gone.example'],
      ['redirect.delete', 'fonts | cors', 'shop.example'],
      ['origin.delete', 'origin.shop.example', 'shop.example'],
      ['domain.delete', 'gone.example', 'gone.example'],
    ]);
    const login = (await events('action=admin.login'))[0];
    expect(login).to.include({ target_type: 'admin_user', target_name: 'Auditor' });
  });

  it('filters by actor, whatever its case', async () => {
    expect(named(await events('actor=auditor')).map(([action]) => action)).to.deep.equal(['domain.delete', 'dns_record.delete', 'dns_record.create', 'admin.login']);
    expect((await events('actor=anonymous')).every((event) => event.actor === 'anonymous')).to.equal(true);
    expect(await events('actor=nobody')).to.deep.equal([]);
    expect(await events('actor=%25')).to.deep.equal([]);
    expect(await events('actor=_uditor')).to.deep.equal([]);
  });

  it('filters by an action, or by a resource for all of its actions', async () => {
    expect((await events('action=dns_record.delete')).map((event) => event.target_id)).to.deep.equal([ids.goneRecord]);
    expect(new Set((await events('action=dns_record')).map((event) => event.action))).to.deep.equal(new Set(['dns_record.create', 'dns_record.delete']));
    expect(await events('action=dns_recor')).to.deep.equal([]);
  });

  it('filters by target type, and by a target\'s id or part of its name or apex', async () => {
    expect((await events('target_type=origin')).map((event) => event.action)).to.deep.equal(['origin.delete', 'origin.create']);
    expect((await events(`target=${ids.www}`)).map((event) => event.target_name)).to.deep.equal(['A www.shop.example']);
    expect(named(await events('target=GONE.example')).map(([action]) => action)).to.deep.equal(['domain.delete', 'dns_record.delete', 'dns_record.create', 'domain.create']);
    expect(named(await events(`target=${encodeURIComponent('fonts |')}`)).map(([action]) => action)).to.deep.equal(['redirect.delete', 'redirect.create']);
    expect((await events('target=_dmarc')).length).to.equal(2);
    expect(await events('target=%25')).to.deep.equal([]);
    expect(await events('target=w_w')).to.deep.equal([]);
  });

  it('filters by time, from inclusive to exclusive', async () => {
    const all = await events();
    const [newest] = all;
    const oldest = all.at(-1)!;
    expect((await events(`from=${newest.created_at + 1}`)).length).to.equal(0);
    expect((await events(`from=${oldest.created_at}&to=${newest.created_at + 1}`)).length).to.equal(all.length);
    expect((await events(`to=${oldest.created_at}`)).length).to.equal(0);
  });

  it('combines filters', async () => {
    const found = await events(`actor=Auditor&action=dns_record&target=gone&domain_id=${ids.gone}`);
    expect(found.map((event) => event.action)).to.deep.equal(['dns_record.delete', 'dns_record.create']);
  });

  it('refuses a malformed filter with 422 naming the parameter', async () => {
    const refused: [string, string][] = [
      ['action=Domain.Create', 'action'],
      ['action=domain.create.x', 'action'],
      ['target_type=dns-record', 'target_type'],
      [`actor=${'a'.repeat(257)}`, 'actor'],
      [`target=${'t'.repeat(257)}`, 'target'],
      ['actor=a&actor=b', 'actor'],
      ['target=%20%20', 'target'],
      ['from=yesterday', 'from'],
      ['to=-1', 'to'],
      ['from=99999999999999999999', 'from'],
      ['from=200&to=100', 'from'],
      ['from=100&to=100', 'from'],
      ['domain_id=', 'domain_id'],
    ];
    for (const [query, field] of refused) {
      const answer: Json = await core.get(`/api/v1/audit?${query}`, 422);
      expect(answer.field, query).to.equal(field);
    }
  });
});

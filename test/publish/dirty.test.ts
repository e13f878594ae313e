import { expect } from 'chai';
import { TestCore, type Json } from '../support/core.js';

// Every change that affects what edges or DNS serve moves publish_state.change_seq once,
// in the same transaction; reads and rejected writes leave it alone.
describe('config dirty marking', () => {
  let core: TestCore;
  before(async () => {
    core = await TestCore.start();
  });
  after(async () => {
    await core.stop();
  });

  const changeSeq = async () => Number((await core.db.publishState.findUnique({ where: { id: 1 } }))?.change_seq ?? 0);

  async function expectOneMark(write: () => Promise<unknown>): Promise<void> {
    const before = await changeSeq();
    await write();
    expect(await changeSeq()).to.equal(before + 1);
  }

  it('marks once per change of domains, records, geo routes, origins, routing, cache, purges and settings', async () => {
    let domain: Json = {};
    await expectOneMark(async () => (domain = await core.createDomain('dirty.example')));
    const base = `/api/v1/domains/${domain.id}`;
    await expectOneMark(() => core.patch(base, { display_name: 'Dirty' }));
    let record: Json = {};
    await expectOneMark(async () => (record = (await core.post(`${base}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.1' }, 201)).data));
    await expectOneMark(() => core.put(`${base}/dns/records/${record.id}/geo-routes`, { routes: [{ scope: 'default', target: '192.0.2.2' }] }));
    await expectOneMark(() => core.post(`${base}/origins`, { host: 'origin.dirty.example' }, 201));
    await expectOneMark(() => core.patch(`${base}/routing`, { routing_mode: 'dns_only' }));
    await expectOneMark(() => core.put(`${base}/cache/settings`, { development_mode: true }));
    await expectOneMark(() => core.post(`${base}/cache/purge`, { scope: 'everything' }, 201));
    await expectOneMark(() => core.patch('/api/v1/settings/dns', { default_ttl: 120 }));
    await expectOneMark(() => core.put('/api/v1/admin/edge-network/anycast', { anycast_ipv4: '192.0.2.99' }));
    await expectOneMark(() => core.delete(`${base}/dns/records/${record.id}`));
    await expectOneMark(() => core.delete(base));
  });

  it('does not mark for reads or rejected writes', async () => {
    const domain = await core.createDomain('quiet.example');
    const before = await changeSeq();
    await core.get('/api/v1/domains');
    await core.get(`/api/v1/domains/${domain.id}/dns/records`);
    await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: 'www', content: '999.1.1.1' }, 422);
    await core.patch('/api/v1/settings/dns', { default_ttl: 1 }, 422);
    expect(await changeSeq()).to.equal(before);
  });

  it('keeps the earliest dirty_since while changes pile up', async () => {
    const first = (await core.db.publishState.findUniqueOrThrow({ where: { id: 1 } })).dirty_since;
    await core.createDomain('later.example');
    expect((await core.db.publishState.findUniqueOrThrow({ where: { id: 1 } })).dirty_since).to.deep.equal(first);
  });
});

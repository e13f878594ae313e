import { expect } from 'chai';
import { TestCore, type Json } from '../../support/core.js';

describe('DNS records API', () => {
  let core: TestCore;
  let domain: Json;
  let path: string;
  before(async () => {
    core = await TestCore.start();
    domain = await core.createDomain('records.example');
    path = `/api/v1/domains/${domain.id}/dns/records`;
  });
  after(async () => {
    await core.stop();
  });

  const create = async (body: Record<string, unknown>) => (await core.post(path, body, 201)).data;
  const reject = async (body: Record<string, unknown>) => core.post(path, body, 422);

  describe('ttl', () => {
    it('defaults to 300', async () => {
      expect((await create({ type: 'A', name: 'ttl-default', content: '192.0.2.1' })).ttl).to.equal(300);
    });
    it('accepts the bounds 60 and 86400', async () => {
      expect((await create({ type: 'A', name: 'ttl-low', content: '192.0.2.1', ttl: 60 })).ttl).to.equal(60);
      expect((await create({ type: 'A', name: 'ttl-high', content: '192.0.2.1', ttl: 86400 })).ttl).to.equal(86400);
    });
    for (const ttl of [59, 86401, 1.5, '300']) {
      it(`rejects a ttl of ${JSON.stringify(ttl)} with 422`, async () => {
        expect((await reject({ type: 'A', name: 'ttl-bad', content: '192.0.2.1', ttl })).field).to.equal('ttl');
      });
    }
  });

  describe('content by type', () => {
    const valid: [string, string, string][] = [
      ['A', '192.0.2.44', '192.0.2.44'],
      ['AAAA', '2001:DB8::1', '2001:db8::1'],
      ['AAAA', '2001:DB8:0:0:0:0:0:2', '2001:db8::2'],
      ['AAAA', '::FFFF:192.0.2.1', '::ffff:192.0.2.1'],
      ['CNAME', 'Target.Example.NET.', 'target.example.net'],
      ['TXT', 'v=spf1 include:_spf.example.net ~all', 'v=spf1 include:_spf.example.net ~all'],
      ['MX', '10 Mail.Example.COM.', '10 mail.example.com'],
      ['NS', 'ns1.delegate.example', 'ns1.delegate.example'],
      ['SRV', '10 5 5060 sip.example.com', '10 5 5060 sip.example.com'],
      ['CAA', '0 ISSUE "letsencrypt.org"', '0 issue "letsencrypt.org"'],
      ['PTR', 'host.example.com', 'host.example.com'],
    ];
    for (const [type, content, canonical] of valid) {
      it(`stores a valid ${type} record in canonical form`, async () => {
        const name = `valid-${type.toLowerCase()}`;
        expect(await create({ type, name, content })).to.include({ type, name, content: canonical });
      });
    }
    const invalid: [string, string][] = [
      ['A', '999.1.1.1'],
      ['A', '2001:db8::1'],
      ['AAAA', '1.2.3.4'],
      ['AAAA', 'fe80::1%eth0'],
      ['CNAME', 'not a host'],
      ['MX', 'mail.example.com'],
      ['MX', '70000 mail.example.com'],
      ['SRV', '10 5 sip.example.com'],
      ['CAA', '0 sendmoney "x"'],
      ['CAA', '0 issue letsencrypt.org'],
      ['TXT', 'line\nbreak'],
      ['NS', '192.0.2.1'],
    ];
    for (const [type, content] of invalid) {
      it(`rejects ${type} content ${JSON.stringify(content)} with 422 on content and stores nothing`, async () => {
        const before = await core.rowCounts();
        expect((await reject({ type, name: 'invalid', content })).field).to.equal('content');
        expect(await core.rowCounts()).to.deep.equal(before);
      });
    }
    it('rejects an unsupported type with 422 on type', async () => {
      expect((await reject({ type: 'HINFO', name: 'x', content: 'a b' })).field).to.equal('type');
    });
  });

  describe('proxying', () => {
    for (const [type, content] of [['A', '192.0.2.5'], ['AAAA', '2001:db8::5'], ['CNAME', 'edge.example.net']]) {
      it(`allows proxied ${type} records`, async () => {
        expect((await create({ type, name: `proxied-${type.toLowerCase()}`, content, proxied: true })).proxied).to.equal(true);
      });
    }
    for (const [type, content] of [['TXT', 'hello'], ['MX', '10 mx.example.com']]) {
      it(`rejects proxied ${type} records with 422 on proxied`, async () => {
        expect((await reject({ type, name: 'proxied-bad', content, proxied: true })).field).to.equal('proxied');
      });
    }
  });

  describe('names', () => {
    it('keeps "@" for the apex and returns the fqdn', async () => {
      expect(await create({ type: 'TXT', name: '@', content: 'apex text' })).to.include({ name: '@', fqdn: 'records.example' });
    });
    it('makes a fully qualified name inside the zone relative', async () => {
      expect(await create({ type: 'TXT', name: 'FQ.Records.Example.', content: 'fq' })).to.include({ name: 'fq', fqdn: 'fq.records.example' });
      expect((await create({ type: 'TXT', name: 'records.example', content: 'apex by name' })).name).to.equal('@');
    });
    it('accepts wildcard and underscore names', async () => {
      expect((await create({ type: 'A', name: '*.wild', content: '192.0.2.9' })).name).to.equal('*.wild');
      expect((await create({ type: 'TXT', name: '_dmarc', content: 'v=DMARC1; p=none' })).name).to.equal('_dmarc');
    });
    for (const name of ['www.other.example.', 'bad..name', '-dash', 'a*b', 'ünïcode']) {
      it(`rejects the name ${JSON.stringify(name)} with 422 on name`, async () => {
        expect((await reject({ type: 'A', name, content: '192.0.2.1' })).field).to.equal('name');
      });
    }
  });

  describe('zone rules', () => {
    it('rejects a CNAME beside another record at the same name', async () => {
      await create({ type: 'A', name: 'taken', content: '192.0.2.20' });
      expect((await reject({ type: 'CNAME', name: 'taken', content: 'x.example.net' })).field).to.equal('type');
    });
    it('rejects a record beside an existing CNAME', async () => {
      await create({ type: 'CNAME', name: 'alias', content: 'x.example.net' });
      expect((await reject({ type: 'TXT', name: 'alias', content: 'nope' })).field).to.equal('name');
    });
    it('rejects an identical duplicate record', async () => {
      await create({ type: 'A', name: 'twin', content: '192.0.2.30' });
      expect((await reject({ type: 'A', name: 'twin', content: '192.0.2.30' })).field).to.equal('content');
      expect((await create({ type: 'A', name: 'twin', content: '192.0.2.31' })).content).to.equal('192.0.2.31');
    });
    it('treats two spellings of one IPv6 address as a duplicate AAAA record', async () => {
      await create({ type: 'AAAA', name: 'twin6', content: '2001:db8:0:0::7' });
      expect((await reject({ type: 'AAAA', name: 'twin6', content: '2001:DB8::7' })).field).to.equal('content');
    });
    it('rejects NS records at the apex', async () => {
      expect((await reject({ type: 'NS', name: '@', content: 'ns.elsewhere.example' })).field).to.equal('name');
    });
    it('allows a CNAME at the apex only when proxied', async () => {
      const other = await core.createDomain('flatten.example');
      const otherPath = `/api/v1/domains/${other.id}/dns/records`;
      expect((await core.post(otherPath, { type: 'CNAME', name: '@', content: 'app.example.net' }, 422)).field).to.equal('name');
      expect((await core.post(otherPath, { type: 'CNAME', name: '@', content: 'app.example.net', proxied: true }, 201)).data.name).to.equal('@');
    });
    it('rejects geo routing on a TXT record', async () => {
      expect((await reject({ type: 'TXT', name: 'geo-txt', content: 'x', routing_policy: 'geo' })).field).to.equal('routing_policy');
    });
  });

  describe('patch and delete', () => {
    it('patches one field and keeps the rest', async () => {
      const record = await create({ type: 'A', name: 'patch-me', content: '192.0.2.40', proxied: true });
      const patched = (await core.patch(`${path}/${record.id}`, { ttl: 3600 })).data;
      expect(patched).to.include({ ttl: 3600, content: '192.0.2.40', proxied: true, name: 'patch-me' });
    });
    it('revalidates the merged record and leaves the row unchanged on 422', async () => {
      const record = await create({ type: 'A', name: 'keep-me', content: '192.0.2.41' });
      expect((await core.patch(`${path}/${record.id}`, { content: '300.0.0.1' }, 422)).field).to.equal('content');
      expect((await core.patch(`${path}/${record.id}`, { type: 'MX', proxied: true }, 422)).field).to.equal('content');
      expect((await core.db.dnsRecord.findUniqueOrThrow({ where: { id: record.id } })).content).to.equal('192.0.2.41');
    });
    it('rejects unknown and read-only fields', async () => {
      const record = await create({ type: 'A', name: 'strict', content: '192.0.2.42' });
      expect((await core.patch(`${path}/${record.id}`, { id: 'other' }, 422)).field).to.equal('id');
      expect((await core.patch(`${path}/${record.id}`, { weight: 3 }, 422)).field).to.equal('weight');
    });
    it('deletes a record', async () => {
      const record = await create({ type: 'A', name: 'gone', content: '192.0.2.43' });
      expect(await core.delete(`${path}/${record.id}`)).to.deep.equal({ ok: true });
      expect(await core.db.dnsRecord.count({ where: { id: record.id } })).to.equal(0);
      await core.delete(`${path}/${record.id}`, 404);
    });
    it('answers 404 for unknown ids and for a record addressed under another domain', async () => {
      const record = await create({ type: 'A', name: 'mine', content: '192.0.2.44' });
      const other = await core.createDomain('other-records.example');
      await core.patch(`/api/v1/domains/${other.id}/dns/records/${record.id}`, { ttl: 600 }, 404);
      await core.delete(`/api/v1/domains/${other.id}/dns/records/${record.id}`, 404);
      await core.get('/api/v1/domains/missing/dns/records', 404);
      await core.post('/api/v1/domains/missing/dns/records', { type: 'A', name: 'x', content: '192.0.2.1' }, 404);
      await core.patch(`${path}/missing`, { ttl: 600 }, 404);
    });
  });

  it('lists records ordered by name and type with paging', async () => {
    const listed = await core.createDomain('listed.example');
    const listPath = `/api/v1/domains/${listed.id}/dns/records`;
    for (const [type, name, content] of [['TXT', 'b', 'x'], ['A', 'b', '192.0.2.1'], ['A', 'a', '192.0.2.2'], ['MX', '@', '5 mx.example.com'], ['A', 'c', '192.0.2.3']]) {
      await core.post(listPath, { type, name, content }, 201);
    }
    const all = (await core.get(`${listPath}?limit=500`)).data;
    expect(all).to.have.length(5);
    const keys = all.map((record: Json) => `${record.name} ${record.type}`);
    expect(keys).to.deep.equal([...keys].sort());
    expect((await core.get(`${listPath}?limit=2&offset=2`)).data.map((record: Json) => record.id)).to.deep.equal([all[2].id, all[3].id]);
    expect((await core.get(`${listPath}?offset=-1`, 422)).field).to.equal('offset');
  });

  it('audits each change with the record id', async () => {
    const record = await create({ type: 'A', name: 'audited', content: '192.0.2.50' });
    await core.patch(`${path}/${record.id}`, { ttl: 120 });
    const events = (await core.get('/api/v1/audit?limit=2')).data;
    expect(events.map((event: Json) => event.action)).to.deep.equal(['dns_record.update', 'dns_record.create']);
    expect(events.every((event: Json) => event.target_id === record.id && event.domain_id === domain.id)).to.equal(true);
  });

  it('reflects writes made directly in the database (another replica) in the next list', async () => {
    const fresh = await core.createDomain('replica-records.example');
    const freshPath = `/api/v1/domains/${fresh.id}/dns/records`;
    const record = (await core.post(freshPath, { type: 'A', name: 'www', content: '192.0.2.60' }, 201)).data;
    expect((await core.get(freshPath)).data[0].ttl).to.equal(300);
    await core.db.dnsRecord.update({ where: { id: record.id }, data: { ttl: 900 } });
    expect((await core.get(freshPath)).data[0].ttl).to.equal(900);
    await core.db.domain.update({ where: { id: fresh.id }, data: { zone_name: 'zone.replica-records.example' } });
    expect((await core.get(freshPath)).data[0].fqdn).to.equal('www.zone.replica-records.example');
  });
});

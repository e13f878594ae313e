import { expect } from 'chai';
import { desiredZone, PROXIED_TTL, zoneDigest, type ZoneRecord, type ZoneSource } from '../../../src/publish/dns/desired-zone.js';

const SOA = { refresh: 7200, retry: 3600, expire: 1209600, minimum: 60, ttl: 60 };
const record = (fields: Partial<ZoneRecord> & Pick<ZoneRecord, 'name' | 'type' | 'content'>): ZoneRecord => ({ ttl: 300, proxied: false, enabled: true, ...fields });

function source(fields: Partial<ZoneSource> = {}): ZoneSource {
  return { zone: 'example.com', status: 'active', nameservers: ['ns1.cdn.test', 'ns2.cdn.test'], records: [], proxied: { ipv4: ['203.0.113.1'], ipv6: [] }, soa: SOA, nsTtl: 86400, ...fields };
}

const find = (zone: ReturnType<typeof desiredZone>, name: string, type: string) => zone.rrsets.find((rrset) => rrset.name === name && rrset.type === type);

describe('desiredZone', () => {
  it('always holds the SOA (serial 0, the settings timers) and the platform NS set', () => {
    const zone = desiredZone(source());
    expect(find(zone, 'example.com.', 'SOA')).to.deep.equal({ name: 'example.com.', type: 'SOA', ttl: 60, contents: ['ns1.cdn.test. hostmaster.example.com. 0 7200 3600 1209600 60'] });
    expect(find(zone, 'example.com.', 'NS')).to.deep.equal({ name: 'example.com.', type: 'NS', ttl: 86400, contents: ['ns1.cdn.test.', 'ns2.cdn.test.'] });
  });

  it('publishes only SOA and NS while the domain is not active, and says why', () => {
    for (const status of ['pending_nameserver', 'disabled'] as const) {
      const zone = desiredZone(source({ status, records: [record({ name: 'www', type: 'A', content: '192.0.2.1' })] }));
      expect(zone.rrsets.map((rrset) => rrset.type)).to.deep.equal(['NS', 'SOA']);
      expect(zone.notes).to.deep.equal([`1 records withdrawn: the domain is ${status}; only SOA and NS are published`]);
    }
  });

  it('groups records into RRsets with the lowest TTL, leaving disabled records out', () => {
    const zone = desiredZone(source({ records: [
      record({ name: 'www', type: 'A', content: '192.0.2.2', ttl: 600 }),
      record({ name: 'www', type: 'A', content: '192.0.2.1', ttl: 120 }),
      record({ name: 'www', type: 'A', content: '192.0.2.3', enabled: false }),
    ] }));
    expect(find(zone, 'www.example.com.', 'A')).to.deep.equal({ name: 'www.example.com.', type: 'A', ttl: 120, contents: ['192.0.2.1', '192.0.2.2'] });
  });

  it('answers proxied names with the edge addresses of both families, their own A/AAAA giving way', () => {
    const zone = desiredZone(source({
      proxied: { ipv4: ['203.0.113.2', '203.0.113.1'], ipv6: ['2001:db8::1'] },
      records: [
        record({ name: '@', type: 'CNAME', content: 'origin.example.net', proxied: true }),
        record({ name: 'www', type: 'A', content: '198.51.100.1', proxied: true }),
        record({ name: 'www', type: 'A', content: '198.51.100.2' }),
      ],
    }));
    expect(find(zone, 'example.com.', 'CNAME')).to.equal(undefined);
    expect(find(zone, 'example.com.', 'A')).to.deep.equal({ name: 'example.com.', type: 'A', ttl: PROXIED_TTL, contents: ['203.0.113.1', '203.0.113.2'] });
    expect(find(zone, 'www.example.com.', 'A')!.contents).to.deep.equal(['203.0.113.1', '203.0.113.2']);
    expect(find(zone, 'www.example.com.', 'AAAA')!.contents).to.deep.equal(['2001:db8::1']);
    expect(zone.notes).to.deep.equal(['www.example.com. A: its own records give way to the edge addresses of its proxied record']);
  });

  it('leaves a proxied name unanswered when there is no edge address, and says so', () => {
    const zone = desiredZone(source({ proxied: { ipv4: [], ipv6: [] }, records: [record({ name: 'www', type: 'A', content: '198.51.100.1', proxied: true })] }));
    expect(find(zone, 'www.example.com.', 'A')).to.equal(undefined);
    expect(zone.notes[0]).to.match(/no edge address/);
  });

  it('publishes proxied records as written under dns_only routing, but never a CNAME at the apex', () => {
    const zone = desiredZone(source({ proxied: null, records: [
      record({ name: 'www', type: 'A', content: '198.51.100.1', proxied: true }),
      record({ name: '@', type: 'CNAME', content: 'origin.example.net', proxied: true }),
    ] }));
    expect(find(zone, 'www.example.com.', 'A')!.contents).to.deep.equal(['198.51.100.1']);
    expect(find(zone, 'example.com.', 'CNAME')).to.equal(undefined);
    expect(zone.notes[0]).to.match(/CNAME cannot be published at the apex/);
  });

  it('publishes a geo-routed record as a LUA record, its plain records of the same type giving way', () => {
    const zone = desiredZone(source({ records: [
      record({ name: 'geo', type: 'A', content: '192.0.2.1', geoRoutes: [{ scope: 'default', code: null, target: '192.0.2.9' }, { scope: 'country', code: 'DE', target: '192.0.2.2' }] }),
      record({ name: 'geo', type: 'A', content: '192.0.2.3' }),
      record({ name: 'geo', type: 'TXT', content: 'kept' }),
    ] }));
    expect(find(zone, 'geo.example.com.', 'LUA')!.contents).to.deep.equal([`A ";if country('DE') then return {'192.0.2.2'} end return {'192.0.2.9'}"`]);
    expect(find(zone, 'geo.example.com.', 'A')).to.equal(undefined);
    expect(find(zone, 'geo.example.com.', 'TXT')!.contents).to.deep.equal(['"kept"']);
    expect(zone.notes).to.deep.equal(['geo.example.com. A: its plain records give way to its geo-routed answers']);
  });

  it('answers proxied names by client location when pool edges report countries', () => {
    const zone = desiredZone(source({
      proxied: { ipv4: ['198.51.100.1', '198.51.100.2', '198.51.100.3'], ipv6: [], byCountry: { DE: { ipv4: ['198.51.100.1'], ipv6: [] }, FR: { ipv4: ['198.51.100.2'], ipv6: [] } } },
      records: [record({ name: 'www', type: 'A', content: '192.0.2.1', proxied: true })],
    }));
    expect(find(zone, 'www.example.com.', 'A')).to.equal(undefined);
    expect(find(zone, 'www.example.com.', 'LUA')).to.deep.equal({
      name: 'www.example.com.',
      type: 'LUA',
      ttl: PROXIED_TTL,
      contents: [`A ";if country('DE') then return {'198.51.100.1'} end if country('FR') then return {'198.51.100.2'} end if continent('EU') then return {'198.51.100.1','198.51.100.2'} end return {'198.51.100.1','198.51.100.2','198.51.100.3'}"`],
    });
  });

  it('names .invalid as SOA primary when no platform nameserver is configured', () => {
    const zone = desiredZone(source({ nameservers: [] }));
    expect(find(zone, 'example.com.', 'SOA')!.contents[0]).to.match(/^ns\.invalid\. hostmaster\.example\.com\. 0 /);
    expect(find(zone, 'example.com.', 'NS')).to.equal(undefined);
  });

  it('gives equal zones equal digests whatever the order of their records', () => {
    const records = [record({ name: 'a', type: 'A', content: '192.0.2.1' }), record({ name: 'b', type: 'TXT', content: 'x' })];
    expect(zoneDigest(desiredZone(source({ records })))).to.equal(zoneDigest(desiredZone(source({ records: [...records].reverse() }))));
    expect(zoneDigest(desiredZone(source({ records })))).not.to.equal(zoneDigest(desiredZone(source({ records: records.slice(1) }))));
  });
});

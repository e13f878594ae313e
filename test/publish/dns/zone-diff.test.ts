import { expect } from 'chai';
import type { Rrset } from '../../../src/publish/dns/desired-zone.js';
import type { PowerDnsRrset } from '../../../src/publish/dns/powerdns-client.js';
import { zoneChanges } from '../../../src/publish/dns/zone-diff.js';

const soa = (serial: number, refresh = 7200) => `ns1.cdn.test. hostmaster.example.com. ${serial} ${refresh} 3600 1209600 60`;
const held = (name: string, type: string, contents: string[], ttl = 300, disabled = false): PowerDnsRrset => ({ name, type, ttl, records: contents.map((content) => ({ content, disabled })) });
const wanted = (name: string, type: string, contents: string[], ttl = 300): Rrset => ({ name, type, ttl, contents });

describe('zoneChanges', () => {
  it('is empty when PowerDNS holds the desired zone, whatever its SOA serial and record order', () => {
    const desired = [wanted('example.com.', 'SOA', [soa(0)], 60), wanted('www.example.com.', 'A', ['192.0.2.1', '192.0.2.2'])];
    const actual = [held('example.com.', 'SOA', [soa(2026112405)], 60), held('WWW.example.com.', 'A', ['192.0.2.2', '192.0.2.1'])];
    expect(zoneChanges(desired, actual)).to.deep.equal([]);
  });

  it('deletes what is not desired before it replaces what differs', () => {
    const desired = [wanted('www.example.com.', 'A', ['192.0.2.1']), wanted('new.example.com.', 'TXT', ['"x"'])];
    const actual = [held('www.example.com.', 'A', ['192.0.2.9']), held('old.example.com.', 'A', ['192.0.2.3'])];
    expect(zoneChanges(desired, actual)).to.deep.equal([
      { name: 'old.example.com.', type: 'A', changetype: 'DELETE' },
      { name: 'www.example.com.', type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.1', disabled: false }] },
      { name: 'new.example.com.', type: 'TXT', ttl: 300, changetype: 'REPLACE', records: [{ content: '"x"', disabled: false }] },
    ]);
  });

  it('replaces an RRset whose TTL differs, or with a record switched off', () => {
    expect(zoneChanges([wanted('a.example.com.', 'A', ['192.0.2.1'], 60)], [held('a.example.com.', 'A', ['192.0.2.1'], 300)])).to.have.length(1);
    expect(zoneChanges([wanted('a.example.com.', 'A', ['192.0.2.1'])], [held('a.example.com.', 'A', ['192.0.2.1'], 300, true)])).to.have.length(1);
  });

  it('replaces a changed SOA with the serial PowerDNS has', () => {
    const changes = zoneChanges([wanted('example.com.', 'SOA', [soa(0, 600)], 60)], [held('example.com.', 'SOA', [soa(2026112405)], 60)]);
    expect(changes).to.deep.equal([{ name: 'example.com.', type: 'SOA', ttl: 60, changetype: 'REPLACE', records: [{ content: soa(2026112405, 600), disabled: false }] }]);
  });
});

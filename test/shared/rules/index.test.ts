import { expect } from 'chai';
import ipaddr from 'ipaddr.js';
import { compileMatch } from '../../../src/shared/rules/compile.js';
import { parseIp } from '../../../src/shared/rules/ip-set.js';
import { indexKey } from '../../../src/shared/rules/rule-index.js';
import { allMatches, compileRuleSet, firstMatch, prepareRequest, type RuleBase } from '../../../src/shared/rules/rule-set.js';
import { generateMatch, generateRequest, random } from './generators.js';

describe('rule index and address parsing', () => {
  it('finds the same first match and the same set of matches as a linear scan, on generated rule sets', () => {
    const rng = random(424242);
    for (let round = 0; round < 200; round++) {
      const rules: RuleBase[] = Array.from({ length: 30 }, (_, index) => ({ id: `r${index}`, name: `rule ${index}`, enabled: rng() < 0.9, priority: Math.floor(rng() * 50), match: generateMatch(rng) }));
      const set = compileRuleSet(rules);
      const linear = [...rules]
        .filter((rule) => rule.enabled)
        .sort((a, b) => a.priority - b.priority || a.name.localeCompare(b.name) || a.id.localeCompare(b.id))
        .map((rule) => ({ id: rule.id, matches: compileMatch(rule.match) }));
      for (let i = 0; i < 50; i++) {
        const request = prepareRequest(generateRequest(rng));
        const expected = linear.filter((rule) => rule.matches.test(request)).map((rule) => rule.id);
        expect(allMatches(set, request).map((hit) => hit.rule.id)).to.deep.equal(expected);
        expect(firstMatch(set, request)?.rule.id).to.equal(expected[0]);
      }
    }
  });

  it('files rules under a path head, an extension, exact hosts, or always', () => {
    expect(indexKey({ paths: [{ kind: 'prefix', value: '/blog' }] })).to.deep.equal({ head: 'b'.charCodeAt(0) * 65536 + 'l'.charCodeAt(0) });
    expect(indexKey({ ips: ['192.0.2.0/24', '2001:db8::/32'] })).to.deep.equal({ networks: [192, 256 + 0x2001] });
    expect(indexKey({ ips: ['0.0.0.0/0'] })).to.equal('always');
    expect(indexKey({ paths: [{ kind: 'wildcard', value: '*.css' }] })).to.deep.equal({ extension: 'css' });
    expect(indexKey({ hosts: [{ kind: 'exact', value: 'WWW.example.com' }] })).to.deep.equal({ hosts: ['www.example.com'] });
    expect(indexKey({ paths: [{ kind: 'prefix', value: '/b' }] })).to.equal('always');
    expect(indexKey({ paths: [{ kind: 'prefix', value: '/Blog', case_sensitive: false }] })).to.equal('always');
    expect(indexKey({ paths: [{ kind: 'regex', value: '^/blog' }] })).to.equal('always');
  });

  it('parses 5,000 random addresses in every notation exactly as ipaddr.js does', () => {
    const rng = random(99);
    for (let i = 0; i < 5000; i++) {
      const bytes = Array.from({ length: 16 }, () => (rng() < 0.3 ? 0 : Math.floor(rng() * 256)));
      const v6 = ipaddr.fromByteArray(bytes) as ipaddr.IPv6;
      for (const text of [v6.toString(), v6.toNormalizedString()]) {
        const parsed = parseIp(text);
        const expected = v6.isIPv4MappedAddress()
          ? { v6: false, value: Number(v6.toIPv4Address().toByteArray().reduce((value, byte) => value * 256 + byte, 0)) }
          : { v6: true, words: [0, 4, 8, 12].map((at) => bytes.slice(at, at + 4).reduce((value, byte) => value * 256 + byte, 0)) };
        expect(parsed, text).to.deep.equal(expected);
      }
      const v4 = ipaddr.fromByteArray(bytes.slice(0, 4));
      expect(parseIp(v4.toString())).to.deep.equal({ v6: false, value: bytes.slice(0, 4).reduce((value, byte) => value * 256 + byte, 0) });
    }
  });

  it('parses addresses strictly', () => {
    expect(parseIp('192.0.2.1')).to.deep.equal({ v6: false, value: 3221225985 });
    expect(parseIp('::ffff:192.0.2.1')).to.deep.equal({ v6: false, value: 3221225985 });
    expect(parseIp('2001:db8::1')).to.deep.equal({ v6: true, words: [0x20010db8, 0, 0, 1] });
    expect(parseIp('2001:DB8:0:0:0:0:ffff:1')).to.deep.equal({ v6: true, words: [0x20010db8, 0, 0, 0xffff0001] });
    expect(parseIp('::1')).to.deep.equal({ v6: true, words: [0, 0, 0, 1] });
    expect(parseIp('64:ff9b::192.0.2.1')).to.deep.equal({ v6: true, words: [0x0064ff9b, 0, 0, 3221225985] });
    expect(parseIp('fe80::1%eth0')).to.deep.equal({ v6: true, words: [0xfe800000, 0, 0, 1] });
    const bad = ['256.1.1.1', '1.2.3', '1.2.3.4.5', '01.2.3.4', '1..2.3', 'a.b.c.d', '', '2001:db8::g', '1::2::3', '1:2:3:4:5:6:7', '12345::1', ':::'];
    for (const text of bad) expect(parseIp(text), text).to.equal(undefined);
  });
});

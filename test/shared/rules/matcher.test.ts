import { expect } from 'chai';
import { compileMatch } from '../../../src/shared/rules/compile.js';
import { anchoredLiteralPrefix } from '../../../src/shared/rules/linear-regex.js';
import { matchProblems } from '../../../src/shared/rules/match-problems.js';
import { compileRuleSet, firstMatch, prepareRequest } from '../../../src/shared/rules/rule-set.js';
import type { Match, RequestFacts } from '../../../src/shared/rules/types.js';
import { generateMatch, generateRequest, random } from './generators.js';
import { referenceMatches } from './reference.js';

const request = (facts: Partial<RequestFacts>): RequestFacts => ({ host: 'example.com', path: '/', method: 'GET', query: {}, headers: {}, cookies: {}, ...facts });
const matches = (match: Match, facts: Partial<RequestFacts>) => compileMatch(match).test(prepareRequest(request(facts)));

describe('rule matcher', () => {
  it('agrees with the reference evaluation on 20,000 generated match/request pairs', () => {
    const rng = random(20261122);
    let agreed = 0;
    let matched = 0;
    for (let i = 0; i < 20000; i++) {
      const match = generateMatch(rng);
      const facts = generateRequest(rng);
      const actual = compileMatch(match).test(prepareRequest(facts));
      const expected = referenceMatches(match, facts);
      if (actual !== expected) expect.fail(`disagreement for match ${JSON.stringify(match)} and request ${JSON.stringify(facts)}: compiled ${actual}, reference ${expected}`);
      agreed++;
      if (actual) matched++;
    }
    expect(agreed).to.equal(20000);
    expect(matched, 'generated cases should match often enough to mean something').to.be.within(2000, 18000);
  });

  it('holds a query condition when any value of a repeated parameter matches, and its negation when none does', () => {
    const debug: Match = { query: [{ name: 'debug', pattern: { kind: 'exact', value: '1' } }] };
    expect(matches(debug, { query: { debug: ['1', '0'] } })).to.equal(true);
    expect(matches(debug, { query: { debug: ['0', '1'] } })).to.equal(true);
    expect(matches(debug, { query: { debug: ['0', '2'] } })).to.equal(false);
    const notOne: Match = { query: [{ name: 'debug', pattern: { kind: 'exact', value: '1' }, negate: true }] };
    expect(matches(notOne, { query: { debug: ['0', '1'] } })).to.equal(false);
    expect(matches(notOne, { query: { debug: ['0', '2'] } })).to.equal(true);
  });

  it('reads a query parameter named like an Object property as a parameter only', () => {
    const constructor: Match = { query: [{ name: 'constructor', present: true }] };
    expect(matches(constructor, { query: Object.create(null) })).to.equal(false);
    expect(matches({ headers: [{ name: 'constructor', present: true }] }, { headers: {} })).to.equal(false);
  });

  it('compares methods and countries whatever their case', () => {
    expect(matches({ methods: ['POST'] }, { method: 'post' })).to.equal(true);
    expect(matches({ methods: ['POST'] }, { method: 'Post' })).to.equal(true);
    expect(matches({ methods: ['POST'] }, { method: 'GET' })).to.equal(false);
    expect(matches({ countries: ['DE'] }, { country: 'de' })).to.equal(true);
    expect(matches({ countries: ['DE'] }, { country: 'DE' })).to.equal(true);
    expect(matches({ countries: ['DE'] }, { country: 'FR' })).to.equal(false);
    expect(matches({ not_countries: ['DE'] }, { country: 'dE' })).to.equal(false);
  });

  it('matches an empty match against every request', () => {
    expect(matches({}, { path: '/anything' })).to.equal(true);
  });

  it('compares hosts case-insensitively and paths case-sensitively by default', () => {
    expect(matches({ hosts: [{ kind: 'exact', value: 'WWW.Example.com' }] }, { host: 'www.EXAMPLE.com' })).to.equal(true);
    expect(matches({ paths: [{ kind: 'prefix', value: '/Images' }] }, { path: '/images/a.png' })).to.equal(false);
    expect(matches({ paths: [{ kind: 'prefix', value: '/Images', case_sensitive: false }] }, { path: '/images/a.png' })).to.equal(true);
  });

  it('ignores case_sensitive on host patterns: host names have no case', () => {
    expect(matches({ hosts: [{ kind: 'exact', value: 'Shop.example.com', case_sensitive: true }] }, { host: 'shop.EXAMPLE.com' })).to.equal(true);
  });

  it('treats * in a wildcard as any run of characters and everything else literally', () => {
    const match: Match = { paths: [{ kind: 'wildcard', value: '/files/*.pdf' }] };
    expect(matches(match, { path: '/files/a/b.pdf' })).to.equal(true);
    expect(matches(match, { path: '/files/a.pdfx' })).to.equal(false);
    expect(matches({ paths: [{ kind: 'wildcard', value: '/a.b' }] }, { path: '/axb' })).to.equal(false);
  });

  it('returns regex captures for substitution', () => {
    const prepared = prepareRequest(request({ path: '/old/post/42' }));
    const captures = compileMatch({ paths: [{ kind: 'regex', value: '^/old/(\\w+)/(\\d+)$' }] }).captures(prepared);
    expect(captures).to.deep.equal(['post', '42']);
  });

  it('matches IPv4 and IPv6 CIDRs, and IPv4-mapped IPv6 addresses as IPv4', () => {
    expect(matches({ ips: ['192.0.2.0/24'] }, { ip: '192.0.2.77' })).to.equal(true);
    expect(matches({ ips: ['192.0.2.0/24'] }, { ip: '::ffff:192.0.2.77' })).to.equal(true);
    expect(matches({ ips: ['2001:db8::/32'] }, { ip: '2001:db8:ffff::1' })).to.equal(true);
    expect(matches({ ips: ['2001:db8::/32'] }, { ip: '192.0.2.1' })).to.equal(false);
    expect(matches({ not_ips: ['10.0.0.0/8'] }, { ip: '10.1.2.3' })).to.equal(false);
  });

  it('evaluates rules by priority and skips disabled ones', () => {
    const set = compileRuleSet([
      { id: 'c', name: 'late', enabled: true, priority: 20, match: {} },
      { id: 'a', name: 'off', enabled: false, priority: 1, match: {} },
      { id: 'b', name: 'early', enabled: true, priority: 10, match: { paths: [{ kind: 'prefix', value: '/api' }] } },
    ]);
    expect(firstMatch(set, prepareRequest(request({ path: '/api/x' })))?.rule.id).to.equal('b');
    expect(firstMatch(set, prepareRequest(request({ path: '/web' })))?.rule.id).to.equal('c');
  });

  it('turns requests away on the literal start of an anchored regex only when every match has it', () => {
    const cases: [string, string][] = [
      ['^/api/v(\\d+)$', '/api/v'],
      ['^/a\\.b\\/c', '/a.b/c'],
      ['^/ab+', '/a'],
      ['^/ab*c', '/a'],
      ['^/ab?', '/a'],
      ['^/ab{2}', '/a'],
      ['^/a\\.+', '/a'],
      ['^/ab\\d', '/ab'],
      ['^/a|^/b', ''],
      ['^/(a|b)', ''],
      ['/api', ''],
      ['(?i)^/api', ''],
      ['^/caf\u00e9*', '/caf'],
      ['^/x\u{1F600}+', '/x'],
    ];
    for (const [source, prefix] of cases) expect(anchoredLiteralPrefix(source), source).to.equal(prefix);
    expect(matches({ paths: [{ kind: 'regex', value: '^/ab*c' }] }, { path: '/ac' })).to.equal(true);
    expect(matches({ paths: [{ kind: 'regex', value: '^/api/v(\\d+)$' }] }, { path: '/apx/v1' })).to.equal(false);
    // Case-insensitive: RE2's Unicode folding, through the lower-cased value the matcher passes.
    expect(matches({ paths: [{ kind: 'regex', value: '^/API/(\\d+)$', case_sensitive: false }] }, { path: '/api/7' })).to.equal(true);
    expect(matches({ paths: [{ kind: 'regex', value: '^/Ks$', case_sensitive: false }] }, { path: '/\u212a\u017f' })).to.equal(true);
    expect(matches({ headers: [{ name: 'X-A', pattern: { kind: 'regex', value: '^Session-' } }] }, { headers: { 'x-a': 'SESSION-1' } })).to.equal(true);
  });

  describe('write-time checks', () => {
    it('rejects an invalid regex naming the field', () => {
      expect(matchProblems({ paths: [{ kind: 'exact', value: '/' }, { kind: 'regex', value: '(unclosed' }] })).to.deep.equal([
        { field: 'match.paths.1.value', detail: 'invalid regular expression (RE2 syntax): missing closing ): `(unclosed`' },
      ]);
    });
    it('rejects backreferences and lookaround, which RE2 cannot run, saying why', () => {
      for (const value of ['^(a+)\\1$', '(?<word>\\w+)-\\k<word>', 'foo(?=bar)', 'foo(?!bar)', '(?<=/)admin', '(?<!x)y']) {
        const [problem] = matchProblems({ headers: [{ name: 'user-agent', pattern: { kind: 'regex', value } }] });
        expect(problem?.field, value).to.equal('match.headers.0.pattern.value');
        expect(problem.detail).to.match(/backreferences .* lookaround .* RE2, which matches in linear time/);
      }
    });
    it('compiles a stored regex RE2 refuses (saved before the check) as one that never matches', () => {
      expect(matches({ paths: [{ kind: 'regex', value: '^/(a)\\1$' }] }, { path: '/aa' })).to.equal(false);
      expect(matches({ paths: [{ kind: 'regex', value: '^/(a)\\1$' }, { kind: 'prefix', value: '/a' }] }, { path: '/aa' })).to.equal(true);
    });
    it('accepts the classic catastrophic-backtracking regexes: RE2 runs them in linear time', () => {
      for (const value of ['(\\w|\\d)+$', '(a|aa)+$', '^(a|a)*$', '(.|a)*!x', '(\\d|\\d\\d)+x', '^(a+)+$']) {
        expect(matchProblems({ paths: [{ kind: 'regex', value }] }), value).to.deep.equal([]);
      }
    });
    it('rejects over-long patterns, unknown countries and bad CIDRs', () => {
      const problems = matchProblems({ hosts: [{ kind: 'exact', value: 'a'.repeat(513) }], countries: ['XX'], ips: ['300.1.1.1/8'] });
      expect(problems.map((problem) => problem.field)).to.deep.equal(['match.hosts.0.value', 'match.countries.0', 'match.ips.0']);
    });
    it('accepts a sound match', () => {
      expect(matchProblems({ paths: [{ kind: 'regex', value: '^/api/(v\\d+)/users/(\\d+)$' }], countries: ['DE'], ips: ['2001:db8::/32'] })).to.deep.equal([]);
    });
  });
});

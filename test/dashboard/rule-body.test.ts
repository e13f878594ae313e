import { expect } from 'chai';
import { fieldRule, RULE_SCHEMAS, settingRules } from '../../src/dashboard/api-schemas.js';
import { withValueAt } from '../../src/dashboard/dotted-path.js';
import { problemsOf, sentBody } from '../../src/dashboard/rule-body.js';

// The rule forms' model, without a browser: what the schemas say about a field, what a form sends, what it refuses.
describe('the dashboard rule forms’ model', () => {
  it('reads fixed values, bounds and required fields from the API’s schemas, through $refs and into list entries', () => {
    expect(fieldRule(RULE_SCHEMAS.redirects, 'status_code')).to.include({ type: 'integer', required: false, defaultValue: 301 }).and.have.deep.property('options', [301, 302, 307, 308]);
    expect(fieldRule(RULE_SCHEMAS['cache-rules'], 'edge_ttl_seconds')).to.include({ min: 0, max: 31536000, nullable: true });
    expect(fieldRule(RULE_SCHEMAS.redirects, 'match.paths.0.value')).to.include({ required: true, minLength: 1, maxLength: 512 });
    expect(fieldRule(RULE_SCHEMAS.headers, 'match.headers.3.pattern.kind')?.options).to.deep.equal(['exact', 'prefix', 'wildcard', 'regex']);
    expect(fieldRule(RULE_SCHEMAS.redirects, 'target')?.pattern, 'the no-control-characters $ref').to.be.a('string');
    expect(fieldRule(RULE_SCHEMAS.redirects, 'no_such_field')).to.equal(undefined);
    expect(settingRules('security').security_level.options).to.deep.equal(['off', 'low', 'medium', 'high', 'under_attack']);
  });

  it('leaves out the fields that do not apply, and sends null to clear a value the edited rule has', () => {
    const created = sentBody('rate-limits', { name: 'x', requests: 5, period_seconds: 60, key: 'ip', key_header: 'X-Key', action: 'block', challenge_difficulty: 3 });
    expect(created).to.deep.equal({ name: 'x', requests: 5, period_seconds: 60, key: 'ip', action: 'block' });
    const original = { name: 'x', action: 'cache', edge_ttl_seconds: 60, match: {}, cache_key: {} };
    expect(sentBody('cache-rules', { ...original, action: 'bypass' }, original)).to.deep.equal({ ...original, action: 'bypass', edge_ttl_seconds: null });
    const forwarding = { name: 'f', url_pattern: 'a.example/*', settings: { forwarding_url: { url: 'https://b.example/' }, cache_level: 'basic' } };
    expect(sentBody('page-rules', forwarding).settings).to.deep.equal({ forwarding_url: { url: 'https://b.example/' } });
  });

  it('refuses before sending what the schema refuses, naming the field in words, and requires a nested field only inside its object', () => {
    const problems = problemsOf('cache-rules', { name: '', edge_ttl_seconds: -1, match: { paths: [{ kind: 'prefix', value: '' }], countries: ['DE', 'de'] } });
    expect(problems).to.deep.equal({
      name: 'Name is required',
      edge_ttl_seconds: 'Edge cache TTL (seconds) must be from 0 to 31536000',
      'match.paths.0.value': 'Path 1 is required',
      'match.countries.1': 'Country 2 is not in the form this field takes (see its help)',
    });
    expect(problemsOf('page-rules', { name: 'p', url_pattern: 'a.example/*', settings: { cache_level: 'basic' } })).to.deep.equal({});
    expect(problemsOf('page-rules', withValueAt({ name: 'p', url_pattern: 'a.example/*', settings: {} }, 'settings.forwarding_url.status_code', 302))).to.have.property('settings.forwarding_url.url');
  });

  it('removes a field, and an object inside a top-level field once it is empty, without adding what was not there', () => {
    expect(withValueAt({ settings: { forwarding_url: { url: 'u' } } }, 'settings.forwarding_url.url', undefined)).to.deep.equal({ settings: {} });
    expect(withValueAt({ match: { paths: [{ kind: 'exact', value: '/' }] } }, 'match.paths', undefined)).to.deep.equal({ match: {} });
    expect(withValueAt({ name: 'n' }, 'cache_key.query_strings.names', undefined)).to.deep.equal({ name: 'n' });
    expect(withValueAt({ name: 'n' }, 'cache_key.query_strings.mode', 'all')).to.deep.equal({ name: 'n', cache_key: { query_strings: { mode: 'all' } } });
  });
});

import { expect } from 'chai';
import { loadConfig } from '../../src/config/load.js';
import { buildSnapshot } from '../../src/publish/snapshot-builder.js';
import { firstMatch, prepareRequest } from '../../src/shared/rules/rule-set.js';
import { compileSnapshotRules, type ConfigSnapshot, type SnapshotRule } from '../../src/shared/snapshot.js';
import { snapshotValidators } from '../../src/shared/snapshot-schema.js';
import { TestCore, type Json } from '../support/core.js';
import { layoutBytes } from '../../src/publish/snapshot-layout.js';

const DEFAULTS = {
  cache: { caching_enabled: true, default_edge_ttl_seconds: 3600, browser_ttl_seconds: 14400, respect_origin_cache_control: true, query_string_mode: 'include', stale_while_revalidate_seconds: 0, stale_if_error_seconds: 0, development_mode: false, targeted_cache_control_header: null, strict_rfc9111: false },
  ssl: { mode: 'full', automatic: true, always_https: false, min_tls_version: '1.2', hsts_enabled: false, hsts_max_age: 31536000 },
};

const facts = (url: string, extra: { ip?: string; method?: string } = {}) => {
  const parsed = new URL(url);
  return { host: parsed.hostname, path: parsed.pathname, method: extra.method ?? 'GET', query: {}, headers: {}, cookies: {}, ip: extra.ip };
};

describe('config snapshot content', () => {
  let core: TestCore;
  let snapshot: ConfigSnapshot;
  before(async () => {
    core = await TestCore.start({ CDN_EDGE_CHALLENGE_DIFFICULTY: '3' });
    const domain = await core.createDomain('content.example', { origin_shield_header_name: 'X-Shield', origin_shield_secret: 'shield-secret' });
    await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true });
    await core.createDomain('pending.example');
    const base = `/api/v1/domains/${domain.id}`;
    await core.post(`${base}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.10', proxied: true }, 201);
    await core.post(`${base}/dns/records`, { type: 'A', name: '@', content: '192.0.2.11', proxied: true }, 201);
    await core.post(`${base}/dns/records`, { type: 'A', name: 'mail', content: '192.0.2.12' }, 201);
    await core.post(`${base}/dns/records`, { type: 'TXT', name: 'note', content: 'hello' }, 201);
    await core.post(`${base}/origins`, { host: 'backup.content.example', role: 'backup' }, 201);
    await core.post(`${base}/origins`, { host: 'primary.content.example', monitored: true, circuit_breaker_enabled: false }, 201);
    await core.post(`${base}/origins`, { host: 'drained.content.example', drained: true }, 201);
    await core.post(`${base}/origins`, { host: 'disabled.content.example', enabled: false }, 201);
    await core.post(`${base}/redirects`, { name: 'old blog', match: { paths: [{ kind: 'regex', value: '^/blog/(\\d+)$' }] }, target: '/posts/$1', priority: 20 }, 201);
    await core.post(`${base}/redirects`, { name: 'first', match: { paths: [{ kind: 'prefix', value: '/blog/' }], methods: ['POST'] }, target: '/no-posts', priority: 10 }, 201);
    await core.post(`${base}/redirects`, { name: 'off', enabled: false, target: '/never' }, 201);
    await core.post(`${base}/rate-limits`, { name: 'login', match: { paths: [{ kind: 'prefix', value: '/login' }] }, requests: 10, period_seconds: 60, action: 'challenge' }, 201);
    await core.post(`${base}/waf-rules`, { name: 'managed', signatures: ['sqli'], action: 'block' }, 201);
    await core.post(`${base}/headers`, { name: 'hsts', phase: 'response', operation: 'set', header_name: 'Strict-Transport-Security', value: 'max-age=60' }, 201);
    await core.post(`${base}/ip-rules`, { name: 'office', cidr: '203.0.113.7/24', action: 'allow' }, 201);
    await core.post(`${base}/ip-rules`, { name: 'office admin', cidr: '198.51.100.0/24', action: 'block', match: { ips: ['198.51.100.128/25'], paths: [{ kind: 'prefix', value: '/admin' }] } }, 201);
    await core.post(`${base}/cache-rules`, { name: 'assets', match: { paths: [{ kind: 'wildcard', value: '/assets/*' }] }, action: 'cache', edge_ttl_seconds: 600 }, 201);
    await core.post(`${base}/page-rules`, { name: 'shop', url_pattern: 'www.content.example/shop/*', settings: { cache_level: 'bypass' } }, 201);
    await core.post(`${base}/page-rules`, { name: 'shop posts', url_pattern: 'www.content.example/shop/*', match: { methods: ['POST'] }, settings: { cache_level: 'bypass' } }, 201);
    const config = loadConfig({ DATABASE_URL: core.databaseUrl, CDN_EDGE_CHALLENGE_DIFFICULTY: '3' });
    const built = await buildSnapshot(core.db, core.core.connection.pool, config, DEFAULTS);
    snapshot = JSON.parse(layoutBytes(built.layout).toString()) as ConfigSnapshot;
  });
  after(async () => {
    await core.stop();
  });

  it('matches schemas/snapshot/config-snapshot.schema.json, and the schema refuses a broken one', () => {
    const validate = snapshotValidators().snapshot;
    expect(validate(snapshot), JSON.stringify(validate.errors)).to.equal(true);
    const broken = structuredClone(snapshot) as Json;
    delete broken.domains[0].origins;
    broken.domains[0].rules.redirects[0].status_code = 303;
    expect(validate(broken)).to.equal(false);
    expect(validate.errors!.map((error) => error.instancePath)).to.include.members(['/domains/0', '/domains/0/rules/redirects/0/status_code']);
  });

  it('carries active domains with their proxied hostnames, routable origins and shield secret', () => {
    expect(snapshot.domains.map((item) => item.domain)).to.deep.equal(['content.example']);
    const [item] = snapshot.domains;
    expect(item.hostnames).to.deep.equal(['content.example', 'www.content.example']);
    expect(item.origin_shield).to.deep.equal({ header_name: 'X-Shield', secret: 'shield-secret' });
    expect(item.origins.map((origin) => [origin.host, origin.role])).to.deep.equal([
      ['primary.content.example', 'primary'],
      ['backup.content.example', 'backup'],
    ]);
    expect(item.origins[0]).to.deep.include({ circuit_breaker: null, health_check_path: '/' });
    expect(item.origins[1].circuit_breaker).to.deep.equal({ failure_threshold: 5, window_seconds: 30, cooldown_seconds: 30 });
    expect(item.cache).to.deep.equal(DEFAULTS.cache);
  });

  it('ships enabled rules in evaluation order with defaults resolved and kind conditions folded into the match', () => {
    const { rules } = snapshot.domains[0];
    expect(rules.redirects.map((rule) => rule.name)).to.deep.equal(['first', 'old blog']);
    expect(rules.redirects[0]).to.not.have.any.keys('enabled', 'domain_id', 'created_at', 'updated_at');
    expect(rules['rate-limits'][0].challenge_difficulty).to.equal(3);
    expect(rules['ip-rules'].find((rule) => rule.name === 'office')!.match).to.deep.equal({ ips: ['203.0.113.0/24'] });
    expect(rules['ip-rules'].find((rule) => rule.name === 'office admin')!.also).to.deep.equal({ ips: ['198.51.100.0/24'] });
    const shop = rules['page-rules'].find((rule) => rule.name === 'shop')!;
    expect(shop.match).to.deep.equal({ hosts: [{ kind: 'wildcard', value: 'www.content.example' }], paths: [{ kind: 'wildcard', value: '/shop/*' }] });
    expect(shop).to.not.have.property('also');
    expect(rules['cache-rules'].find((rule) => rule.name === 'assets')).to.include({ edge_ttl_seconds: 600, cache_private: false });
  });

  it('compiles every kind with the shared matcher and decides requests as the rules say', () => {
    const { rules } = snapshot.domains[0];
    const hit = (kind: keyof typeof rules, url: string, extra?: { ip?: string; method?: string }) => firstMatch(compileSnapshotRules(rules[kind] as SnapshotRule[]), prepareRequest(facts(url, extra)))?.rule.name;
    expect(hit('redirects', 'https://www.content.example/blog/7')).to.equal('old blog');
    expect(hit('redirects', 'https://www.content.example/blog/7', { method: 'POST' })).to.equal('first');
    expect(hit('ip-rules', 'https://www.content.example/', { ip: '203.0.113.99' })).to.equal('office');
    expect(hit('ip-rules', 'https://www.content.example/admin', { ip: '198.51.100.200' })).to.equal('office admin');
    expect(hit('ip-rules', 'https://www.content.example/admin', { ip: '198.51.100.20' })).to.equal(undefined);
    expect(hit('page-rules', 'https://www.content.example/shop/cart', { method: 'POST' })).to.equal('shop');
    expect(hit('page-rules', 'https://www.content.example/blog/')).to.equal(undefined);
    expect(hit('cache-rules', 'https://www.content.example/assets/app.js')).to.equal('assets');
    expect(hit('rate-limits', 'https://www.content.example/login')).to.equal('login');
    expect(hit('waf-rules', 'https://www.content.example/anything')).to.equal('managed');
    expect(hit('headers', 'https://www.content.example/')).to.equal('hsts');
  });
});

import { expect } from 'chai';
import { TestCore, type Json } from '../../support/core.js';

const MINUTE = 60000;

describe('overview, warnings and security events', () => {
  let core: TestCore;
  let active: Json;
  let pending: Json;
  before(async () => {
    core = await TestCore.start();
    active = await core.createDomain('active.ops.example');
    await core.post(`/api/v1/domains/${active.id}/activate`, { override: true });
    await core.post(`/api/v1/domains/${active.id}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.1', proxied: true }, 201);
    await core.post(`/api/v1/domains/${active.id}/origins`, { host: 'backup.ops.example', role: 'backup' }, 201);
    pending = await core.createDomain('pending.ops.example');
    const now = Date.now();
    await core.db.edgeNode.createMany({
      data: [
        { edge_id: 'edge-fresh', enabled: true, health_status: 'healthy', last_heartbeat_at: new Date(now - 5000) },
        { edge_id: 'edge-stale', enabled: true, health_status: 'healthy', last_heartbeat_at: new Date(now - 10 * MINUTE) },
      ],
    });
    await core.db.sslCertificate.create({ data: { domain_id: active.id, source: 'acme', status: 'active', hostnames: ['active.ops.example'], not_after: new Date(now + 3 * 86400 * 1000) } });
    await core.db.dnsSyncEvent.create({ data: { zone_name: 'active.ops.example', action: 'patch', success: false, error: 'PowerDNS answered 500' } });
    const events = [
      { kind: 'waf', action: 'block', rule_id: 'rule-1', path: '/wp-login.php', client_country: 'DE' },
      { kind: 'waf', action: 'block', rule_id: 'rule-1', path: '/wp-login.php', client_country: 'DE' },
      { kind: 'rate_limit', action: 'challenge', rule_id: 'rule-2', path: '/login', client_country: 'US' },
    ];
    await core.db.securityEvent.createMany({
      data: events.map((event, index) => ({ ...event, domain_id: active.id, domain: active.domain, edge_id: 'edge-fresh', occurred_at: new Date(now - (index + 1) * MINUTE) })),
    });
  });
  after(async () => {
    await core.stop();
  });

  it('shows counts by domain status, edge pool health, publish state and recent errors', async () => {
    const overview = (await core.get('/api/v1/overview')).data;
    expect(overview.domains).to.deep.equal({ total: 2, pending_nameserver: 1, active: 1, disabled: 0 });
    expect(overview.edges).to.deep.equal({ total: 2, healthy: 1 });
    expect(overview.publish.dirty).to.equal(true);
    expect(overview.recent_errors[0]).to.include({ source: 'dns_sync', error: 'PowerDNS answered 500' });
  });

  it('lists actionable warnings, most severe first', async () => {
    const { count, warnings } = (await core.get('/api/v1/overview/warnings')).data;
    const first = (await core.get('/api/v1/overview/warnings?limit=1')).data;
    expect(first.count).to.equal(count);
    expect(first.warnings).to.deep.equal(warnings.slice(0, 1));
    const second = (await core.get('/api/v1/overview/warnings?limit=1&offset=1')).data;
    expect(second.warnings).to.deep.equal(warnings.slice(1, 2));
    expect((await core.get('/api/v1/overview/warnings?offset=2')).data.warnings).to.deep.equal(warnings.slice(2));
    for (const limit of ['0', '501', 'x', '1.5']) expect((await core.get(`/api/v1/overview/warnings?limit=${limit}`, 422)).field).to.equal('limit');
    for (const offset of ['-1', 'abc', '99999999999999999999']) expect((await core.get(`/api/v1/overview/warnings?offset=${offset}`, 422)).field).to.equal('offset');
    const codes = warnings.map((warning: Json) => warning.code);
    expect(codes).to.include.members(['certificate_expiring', 'edge_stale', 'origins_without_primary', 'domain_waiting_for_nameservers']);
    expect(count).to.equal(warnings.length);
    expect(warnings.find((warning: Json) => warning.code === 'domain_waiting_for_nameservers').domain_id).to.equal(pending.id);
    expect(warnings.find((warning: Json) => warning.code === 'edge_stale').detail.edge_id).to.equal('edge-stale');
    const severities = warnings.map((warning: Json) => ({ critical: 0, warning: 1, info: 2 })[warning.severity as 'info']);
    expect(severities).to.deep.equal([...severities].sort());
  });

  it('lists an enabled rule whose stored regex the matcher refuses (saved before the RE2 check), and not a disabled one', async () => {
    const lookbehind = { paths: [{ kind: 'regex', value: '^/(?<!admin)login$' }] };
    const rule = await core.db.wafRule.create({ data: { domain_id: active.id, name: 'old lookbehind', action: 'block', match: lookbehind } });
    await core.db.wafRule.create({ data: { domain_id: active.id, name: 'disabled lookbehind', enabled: false, action: 'block', match: lookbehind } });
    const { warnings } = (await core.get('/api/v1/overview/warnings')).data;
    const unusable = warnings.filter((warning: Json) => warning.code === 'rule_pattern_unusable');
    expect(unusable).to.have.length(1);
    expect(unusable[0]).to.deep.include({ severity: 'warning', domain_id: active.id });
    expect(unusable[0].detail).to.include({ kind: 'waf-rules', rule_id: rule.id });
    expect(unusable[0].message).to.match(/waf_rule rule "old lookbehind" has a pattern the matcher refuses/);
    await core.db.wafRule.deleteMany({ where: { domain_id: active.id } });
  });

  it('lists security events newest first, for all domains and per domain', async () => {
    const all = (await core.get('/api/v1/security/events')).data;
    expect(all.map((event: Json) => event.kind)).to.deep.equal(['waf', 'waf', 'rate_limit']);
    expect(all[0].occurred_at).to.be.a('number');
    expect((await core.get(`/api/v1/security/events?domain_id=${pending.id}`)).data).to.deep.equal([]);
    expect((await core.get(`/api/v1/domains/${active.id}/security/events?limit=1`)).data).to.have.length(1);
    await core.get('/api/v1/domains/missing/security/events', 404);
    await core.get('/api/v1/security/events?limit=0', 422);
  });

  it('summarises security events by kind, action, country, path and rule', async () => {
    const summary = (await core.get(`/api/v1/security/summary?domain_id=${active.id}`)).data;
    expect(summary).to.deep.include({ total: 3, by_kind: { waf: 2, rate_limit: 1 }, by_action: { block: 2, challenge: 1 } });
    expect(summary.top_countries[0]).to.deep.equal({ country: 'DE', count: 2 });
    expect(summary.top_paths[0]).to.deep.equal({ path: '/wp-login.php', count: 2 });
    expect(summary.top_rules[0]).to.deep.equal({ rule_id: 'rule-1', count: 2 });
    expect((await core.get('/api/v1/security/summary?from=0&to=1')).data.total).to.equal(0);
  });
});

import { expect } from 'chai';
import pino from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { startCore } from '../../src/core/start.js';
import { DnsSync } from '../../src/publish/dns/dns-sync.js';
import { powerDnsClient } from '../../src/publish/dns/powerdns-connection.js';
import { TestCore, type Json } from '../support/core.js';
import { eventually } from '../support/eventually.js';
import { PowerDnsServer, powerDnsMissing } from '../support/powerdns.js';

// Client locations of the geoip backend's database (documentation ranges): what dig's +subnet places the client in.
const LOCATIONS: Record<string, [string, string]> = { '192.0.2.0/24': ['DE', 'EU'], '203.0.113.0/24': ['FR', 'EU'], '198.51.100.0/24': ['US', 'NA'], '100.64.0.0/24': ['JP', 'AS'] };

// The whole publishing path against a real pdns_server: the core's DNS sync loop
// (CDN_POWERDNS_API_URL set, a 1 s sync interval) and answers read with real DNS queries.
describe('DNS publishing to PowerDNS', function () {
  this.timeout(60000);
  let pdns: PowerDnsServer;
  let core: TestCore;

  before(async function () {
    const missing = powerDnsMissing();
    if (missing) throw new Error(missing);
    pdns = await PowerDnsServer.start(LOCATIONS);
    core = await TestCore.start({ ...pdns.env, CDN_SYNC_INTERVAL_SECONDS: '1', CDN_DEFAULT_NAMESERVERS: 'ns1.platform.test,ns2.platform.test', CDN_POWERDNS_MAX_ATTEMPTS: '2' });
  });

  after(async () => {
    await core?.stop();
    await pdns?.stop();
  });

  const answers = async <T>(lookup: () => Promise<T>): Promise<T | 'none'> => {
    try {
      return await lookup();
    } catch (error) {
      const code = (error as { code?: string }).code;
      // REFUSED: the server has no zone for the name (yet, or no longer).
      if (code === 'ENODATA' || code === 'ENOTFOUND' || code === 'EREFUSED') return 'none';
      throw error;
    }
  };
  const a = (name: string) => answers(() => pdns.resolver().resolve4(name));
  // Polls `lookup` until it gives `expected`; a lookup that throws (the zone is not there yet) is polled again.
  const until = async <T>(what: string, lookup: () => Promise<T>, expected: unknown) =>
    eventually(what, async () => {
      const value = await lookup().catch(() => undefined);
      return JSON.stringify(value) === JSON.stringify(expected) ? true : undefined;
    });
  const sorted = async (lookup: Promise<string[] | 'none'>) => {
    const value = await lookup;
    return value === 'none' ? value : [...value].sort();
  };

  // The resolver hands TXT bytes over as latin1 strings, one per character-string.
  const utf8 = (chunks: string[]) => Buffer.from(chunks.join(''), 'latin1').toString('utf8');

  async function activeDomain(apex: string): Promise<Json> {
    const domain = await core.createDomain(apex);
    await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true });
    return domain;
  }

  it('creates the zone when the domain is saved, with SOA and the platform NS only until it is active', async () => {
    const domain = await core.createDomain('saved.test');
    await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.10' }, 201);
    const soa = await eventually('the SOA of saved.test', async () => {
      const answer = await answers(() => pdns.resolver().resolveSoa('saved.test'));
      return answer === 'none' ? undefined : answer;
    });
    expect(soa).to.include({ nsname: 'ns1.platform.test', hostmaster: 'hostmaster.saved.test', refresh: 7200, retry: 3600, expire: 1209600, minttl: 60 });
    expect((await pdns.resolver().resolveNs('saved.test')).sort()).to.deep.equal(['ns1.platform.test', 'ns2.platform.test']);
    expect(await a('www.saved.test')).to.equal('none');
    await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true });
    await until('www.saved.test to be answered', () => a('www.saved.test'), ['192.0.2.10']);
  });

  it('publishes every record type as written, and a second sync changes nothing', async () => {
    const domain = await activeDomain('types.test');
    const records = [
      { type: 'A', name: '@', content: '192.0.2.1' },
      { type: 'AAAA', name: 'v6', content: '2001:DB8:0:0::1' },
      { type: 'CNAME', name: 'alias', content: 'target.example.net' },
      { type: 'MX', name: '@', content: '10 mail.types.test' },
      { type: 'TXT', name: '@', content: 'v=spf1 -all "quoted" \\ back' },
      { type: 'TXT', name: 'long', content: `${'x'.repeat(300)}é` },
      { type: 'SRV', name: '_sip._tcp', content: '10 5 5060 sip.types.test' },
      { type: 'CAA', name: '@', content: '0 issue "letsencrypt.org"' },
      { type: 'NS', name: 'sub', content: 'ns.elsewhere.example' },
      { type: 'A', name: '*.wild', content: '192.0.2.7', ttl: 120 },
    ];
    for (const record of records) await core.post(`/api/v1/domains/${domain.id}/dns/records`, record, 201);
    const resolver = pdns.resolver();
    await until('the apex A', () => a('types.test'), ['192.0.2.1']);
    await until('every record', async () => [
      await resolver.resolve6('v6.types.test'),
      await resolver.resolveCname('alias.types.test'),
      await resolver.resolveMx('types.test'),
      (await resolver.resolveTxt('types.test')).map(utf8),
      (await resolver.resolveTxt('long.types.test')).map(utf8),
      await resolver.resolveSrv('_sip._tcp.types.test'),
      await resolver.resolve4('anything.wild.types.test'),
    ], [
      ['2001:db8::1'],
      ['target.example.net'],
      [{ exchange: 'mail.types.test', priority: 10 }],
      ['v=spf1 -all "quoted" \\ back'],
      [`${'x'.repeat(300)}é`],
      [{ name: 'sip.types.test', port: 5060, priority: 10, weight: 5 }],
      ['192.0.2.7'],
    ]);
    expect(await resolver.resolveCaa('types.test')).to.deep.equal([{ critical: 0, issue: 'letsencrypt.org' }]);
    const zone = await pdns.api('GET', '/zones/types.test.');
    expect(zone.json.rrsets.find((rrset: Json) => rrset.name === 'sub.types.test.' && rrset.type === 'NS').records).to.deep.equal([{ content: 'ns.elsewhere.example.', disabled: false }]);
    // Full syncs every second compare the zone with what PowerDNS gives back: nothing may look different.
    const writes = () => core.db.dnsSyncEvent.count({ where: { zone_name: 'types.test' } });
    // A write's event is recorded after PowerDNS answers it, and before the zone's state says published.
    await eventually('the zone state to say published', async () => {
      const published = await core.db.dnsZoneState.findUnique({ where: { domain_id: domain.id } });
      return published && published.published_hash === published.desired_hash ? true : undefined;
    });
    const before = await writes();
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await writes()).to.equal(before);
    const state = await core.db.dnsZoneState.findUnique({ where: { domain_id: domain.id } });
    expect(state).to.include({ last_error: null });
    expect(state!.published_hash).to.equal(state!.desired_hash);
  });

  it('answers proxied names with the anycast addresses, and follows their change', async () => {
    const domain = await activeDomain('proxied.test');
    await core.put('/api/v1/admin/edge-network/anycast', { anycast_ipv4: '203.0.113.5', anycast_ipv6: '2001:db8::5' });
    await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'CNAME', name: '@', content: 'origin.example.net', proxied: true }, 201);
    await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: 'www', content: '198.51.100.20', proxied: true }, 201);
    await until('the flattened apex', () => a('proxied.test'), ['203.0.113.5']);
    await until('the proxied www', () => a('www.proxied.test'), ['203.0.113.5']);
    expect(await pdns.resolver().resolve6('www.proxied.test')).to.deep.equal(['2001:db8::5']);
    await core.put('/api/v1/admin/edge-network/anycast', { anycast_ipv4: '203.0.113.6, 203.0.113.7', anycast_ipv6: null });
    await until('the new anycast addresses', () => sorted(a('www.proxied.test')), ['203.0.113.6', '203.0.113.7']);
    await core.put('/api/v1/admin/edge-network/anycast', { anycast_ipv4: null });
  });

  it('answers proxied names in geo mode with the edges of the pool, and an edge that stops heartbeating leaves', async () => {
    const domain = await activeDomain('pool.test');
    const now = new Date();
    await core.db.edgeNode.create({ data: { edge_id: 'edge-a', public_ip: '198.51.100.1', health_status: 'healthy', last_heartbeat_at: now } });
    await core.db.edgeNode.create({ data: { edge_id: 'edge-b', public_ip: '198.51.100.2', health_status: 'healthy', last_heartbeat_at: now } });
    await core.db.edgeNode.create({ data: { edge_id: 'edge-old', public_ip: '198.51.100.3', health_status: 'healthy', last_heartbeat_at: new Date(now.getTime() - 3600_000) } });
    await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.99', proxied: true }, 201);
    await until('the pool', () => sorted(a('www.pool.test')), ['198.51.100.1', '198.51.100.2']);
    // No write marks the config dirty: edge-b just goes quiet, and the periodic sync notices.
    await core.db.edgeNode.update({ where: { edge_id: 'edge-b' }, data: { last_heartbeat_at: new Date(now.getTime() - 3600_000) } });
    await until('edge-b to leave the answers', () => a('www.pool.test'), ['198.51.100.1']);
  });

  it('answers a geo-routed record per client country and continent, else its default', async () => {
    const domain = await activeDomain('geo.test');
    const record = (await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.1' }, 201)).data;
    await core.put(`/api/v1/domains/${domain.id}/dns/records/${record.id}/geo-routes`, { routes: [
      { scope: 'country', code: 'DE', target: '192.0.2.50' },
      { scope: 'continent', code: 'EU', target: '192.0.2.51' },
      { scope: 'default', target: '192.0.2.52' },
    ] });
    await until('the German answer', () => pdns.answersFrom('192.0.2.0/24', 'www.geo.test'), ['192.0.2.50']);
    expect(await pdns.answersFrom('203.0.113.0/24', 'www.geo.test')).to.deep.equal(['192.0.2.51']);
    expect(await pdns.answersFrom('198.51.100.0/24', 'www.geo.test')).to.deep.equal(['192.0.2.52']);
    expect(await a('www.geo.test')).to.deep.equal(['192.0.2.52']);
    // What PowerDNS gives back equals what was sent: no sync rewrites the LUA record.
    const writes = () => core.db.dnsSyncEvent.count({ where: { zone_name: 'geo.test' } });
    const before = await writes();
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await writes()).to.equal(before);
  });

  it('answers a proxied name in geo routing with the pool edges of the client\'s country, else continent, else all', async () => {
    const domain = await activeDomain('near.test');
    const now = new Date();
    await core.db.edgeNode.create({ data: { edge_id: 'edge-de', public_ip: '10.0.0.1', country: 'DE', health_status: 'healthy', last_heartbeat_at: now } });
    await core.db.edgeNode.create({ data: { edge_id: 'edge-us', public_ip: '10.0.0.2', country: 'US', health_status: 'healthy', last_heartbeat_at: now } });
    try {
      await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: 'cdn', content: '192.0.2.1', proxied: true }, 201);
      await until('the German edge for a German client', () => pdns.answersFrom('192.0.2.0/24', 'cdn.near.test'), ['10.0.0.1']);
      expect(await pdns.answersFrom('203.0.113.0/24', 'cdn.near.test')).to.deep.equal(['10.0.0.1']);
      expect(await pdns.answersFrom('198.51.100.0/24', 'cdn.near.test')).to.deep.equal(['10.0.0.2']);
      const everyEdge = await pdns.answersFrom('100.64.0.0/24', 'cdn.near.test');
      expect(everyEdge).to.include.members(['10.0.0.1', '10.0.0.2']);
    } finally {
      await core.db.edgeNode.deleteMany({ where: { edge_id: { in: ['edge-de', 'edge-us'] } } });
    }
  });

  it('repairs a record changed, added or switched off in PowerDNS behind its back', async () => {
    const domain = await activeDomain('drift.test');
    await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.50' }, 201);
    await until('www.drift.test', () => a('www.drift.test'), ['192.0.2.50']);
    const patch = await pdns.api('PATCH', '/zones/drift.test.', {
      rrsets: [
        { name: 'www.drift.test.', type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.66', disabled: false }] },
        { name: 'rogue.drift.test.', type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.67', disabled: false }] },
      ],
    });
    expect(patch.status).to.equal(204);
    await until('the repair of www', () => a('www.drift.test'), ['192.0.2.50']);
    await until('the removal of rogue', () => a('rogue.drift.test'), 'none');
    const off = await pdns.api('PATCH', '/zones/drift.test.', { rrsets: [{ name: 'www.drift.test.', type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.50', disabled: true }] }] });
    expect(off.status).to.equal(204);
    await until('www switched back on', () => a('www.drift.test'), ['192.0.2.50']);
    const events = await core.db.dnsSyncEvent.findMany({ where: { zone_name: 'drift.test', action: 'patch', success: true } });
    expect(events.length).to.be.greaterThan(0);
  });

  it('withdraws the records of a domain that is no longer active and republishes them when it is again', async () => {
    const domain = await activeDomain('lifecycle.test');
    await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.80' }, 201);
    await until('www.lifecycle.test', () => a('www.lifecycle.test'), ['192.0.2.80']);
    await core.patch(`/api/v1/domains/${domain.id}`, { status: 'disabled' });
    await until('the records to be withdrawn', () => a('www.lifecycle.test'), 'none');
    expect((await pdns.resolver().resolveNs('lifecycle.test')).sort()).to.deep.equal(['ns1.platform.test', 'ns2.platform.test']);
    expect((await core.get(`/api/v1/domains/${domain.id}/dns/records`)).data).to.have.length(1);
    await core.patch(`/api/v1/domains/${domain.id}`, { status: 'pending_nameserver' });
    await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true });
    await until('the records to be republished', () => a('www.lifecycle.test'), ['192.0.2.80']);
  });

  it('deletes the zone of a deleted domain, and leaves alone a zone it does not own', async () => {
    const foreign = await pdns.api('POST', '/zones', { name: 'foreign.test.', kind: 'Native', nameservers: ['ns.foreign.test.'] });
    expect(foreign.status).to.equal(201);
    const domain = await activeDomain('gone.test');
    await eventually('the zone of gone.test', async () => ((await pdns.api('GET', '/zones/gone.test.')).status === 200 ? true : undefined));
    await core.delete(`/api/v1/domains/${domain.id}`);
    await eventually('the zone to be deleted', async () => ((await pdns.api('GET', '/zones/gone.test.')).status === 404 ? true : undefined));
    expect((await pdns.api('GET', '/zones/foreign.test.')).status).to.equal(200);
    // The event is recorded after PowerDNS answered the delete.
    const deleted = await eventually('the delete event', async () => (await core.db.dnsSyncEvent.findFirst({ where: { zone_name: 'gone.test', action: 'delete' } })) ?? undefined);
    expect(deleted).to.include({ success: true });

    const claimed = await core.createDomain('foreign.test');
    const state = await eventually('the refusal to take over foreign.test', async () => (await core.db.dnsZoneState.findUnique({ where: { domain_id: claimed.id } }))?.last_error ?? undefined);
    expect(state).to.match(/not this control plane's/);
    expect((await pdns.api('GET', '/zones/foreign.test.')).json.account).to.equal('');
    // Nothing was written: the refusal is on the zone state, not a failed event each run.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await core.db.dnsSyncEvent.count({ where: { zone_name: 'foreign.test' } })).to.equal(0);
    await core.delete(`/api/v1/domains/${claimed.id}`);
  });

  it('records failed attempts while PowerDNS is down and catches up when it returns', async () => {
    const domain = await activeDomain('outage.test');
    await until('the zone of outage.test', () => answers(() => pdns.resolver().resolveNs('outage.test')).then((names) => (names === 'none' ? 'none' : 'ok')), 'ok');
    await pdns.pause();
    const paused = new Date();
    try {
      await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.90' }, 201);
      // A run stops at its first zone that fails this way (the others would too); which zone that is depends on the order.
      const failed = await eventually('a failed sync event', () => core.db.dnsSyncEvent.findFirst({ where: { success: false, created_at: { gte: paused } } }).then((row) => row ?? undefined));
      expect(failed.status_code).to.equal(null);
      expect(failed.attempt).to.equal(2);
      expect(failed.error).to.match(/ECONNREFUSED|fetch failed/);
      const overview = await core.get('/api/v1/overview');
      expect(overview.data.recent_errors.some((entry: Json) => entry.source === 'dns_sync' && entry.zone === failed.zone_name)).to.equal(true);
    } finally {
      await pdns.resume();
    }
    await until('www.outage.test after the outage', () => a('www.outage.test'), ['192.0.2.90']);
    await eventually('every zone state to recover', async () => ((await core.db.dnsZoneState.count({ where: { last_error: { not: null } } })) === 0 ? true : undefined));
  });

  it('writes a change that arrives during a full sweep before the sweep reaches its zone', async () => {
    const domains: Json[] = [];
    for (let n = 0; n < 25; n++) domains.push(await activeDomain(`sweep${n}.test`));
    await until('the last sweep zone', () => answers(() => pdns.resolver().resolveNs('sweep24.test')).then((names) => (names === 'none' ? 'none' : 'ok')), 'ok');
    const config = loadConfig({ ...pdns.env, DATABASE_URL: core.databaseUrl });
    const sync = new DnsSync({ db: core.db, pool: core.core.connection.pool, config, client: powerDnsClient(config)!, logger: pino({ level: 'silent' }) });
    let asked = 0;
    const run = await eventually('a sweep of our own (the core may hold the lock)', async () => {
      return sync.run({
        full: true,
        interrupt: async () => {
          if (++asked > 1) return false;
          // The change lands while the sweep is at its first zones; the last domain is far behind.
          await core.db.dnsRecord.create({ data: { domain_id: domains[24].id, type: 'TXT', name: 'late', content: 'arrived mid-sweep', content_digest: 'late' } });
          return true;
        },
      });
    });
    const position = (zone: string) => run.zones.findIndex((result) => result.zone === zone);
    expect(run.zones[position('sweep24.test')]).to.include({ action: 'patch' });
    // Written in the pass the interrupt made, before the sweep came to the zones created just before it.
    expect(position('sweep24.test')).to.be.lessThan(position('sweep23.test'));
    expect(asked).to.be.greaterThan(1);
    expect(await answers(() => pdns.resolver().resolveTxt('late.sweep24.test'))).to.deep.equal([['arrived mid-sweep']]);
  });

  it('publishes once with two core replicas syncing the same zones', async () => {
    const config = loadConfig({ ...pdns.env, CDN_CORE_PORT: '0', CDN_LOG_LEVEL: 'silent', CDN_PUBLISH_ENABLED: 'false', DATABASE_URL: core.databaseUrl, CDN_SYNC_INTERVAL_SECONDS: '1', CDN_AUTO_MIGRATE: 'false' });
    const replica = await startCore(config, pino({ level: 'silent' }));
    try {
      const since = new Date();
      const domains = await Promise.all(Array.from({ length: 5 }, (_, n) => activeDomain(`replica${n}.test`)));
      await Promise.all(domains.map((domain, n) => core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: 'www', content: `192.0.2.${100 + n}` }, 201)));
      for (let n = 0; n < 5; n++) await until(`www.replica${n}.test`, () => a(`www.replica${n}.test`), [`192.0.2.${100 + n}`]);
      // Each event is recorded after PowerDNS answered its write: wait for the fifth, then make sure no sixth follows.
      const creates = () => core.db.dnsSyncEvent.count({ where: { action: 'create', zone_name: { startsWith: 'replica' } } });
      await eventually('five zone creations recorded', async () => ((await creates()) >= 5 ? true : undefined));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(await creates()).to.equal(5);
      expect(await core.db.dnsSyncEvent.count({ where: { success: false, created_at: { gte: since } } })).to.equal(0);
    } finally {
      await replica.stop();
    }
  });

  it('shows a zone\'s publication state with its recent attempts, and the history of every zone', async () => {
    const domain = await activeDomain('status.test');
    const synced = await eventually('status.test in sync', async () => {
      const zone = (await core.get(`/api/v1/domains/${domain.id}/dns/sync`)).data;
      return zone.status === 'in_sync' ? zone : undefined;
    });
    expect(synced).to.include({ domain_id: domain.id, zone: 'status.test', last_error: null, failed_attempts: 0 });
    expect(synced.recent_events[0]).to.include({ zone: 'status.test', action: 'create', success: true, status_code: null, attempts: 1 });
    const failed = (await core.get('/api/v1/dns/sync-events?success=false&limit=5')).data;
    expect(failed.every((event: Json) => event.success === false)).to.equal(true);
    expect((await core.get('/api/v1/dns/sync-events?zone=status.test.')).data.map((event: Json) => event.action)).to.deep.equal(['create']);
    expect((await core.get('/api/v1/dns/sync-events?success=maybe', 422)).field).to.equal('success');
    await core.get('/api/v1/domains/no-such-domain/dns/sync', 404);
    // A GitOps run that applied this domain shows whether its zone is published as it stands.
    await core.post('/api/v1/gitops/runs', { repo: 'file:///dns-test.git', trigger: 'manual', status: 'applied', started_at: Math.floor(Date.now() / 1000), domains: [{ domain: 'status.test', action: 'update' }] }, 201);
    const repo = (await core.get('/api/v1/gitops/status')).data.repos.find((entry: Json) => entry.repo === 'file:///dns-test.git');
    expect(repo.dns).to.deep.equal([{ domain: 'status.test', zone: 'status.test', status: 'in_sync' }]);
  });

  it('reports DNS sync health: counts without credentials, the loop with them', async () => {
    const health = await core.get('/cdn-health');
    expect(health.dns).to.include({ publishing: 'on', ok: true, failing: 0 });
    expect(health.dns.zones).to.equal(health.dns.in_sync + health.dns.pending);
    expect(JSON.stringify(health)).not.to.include('.test');
    const readiness = await core.get('/api/v1/readiness');
    expect(readiness.dns.loop).to.include({ enabled: true, last_error: null });
    expect(readiness.dns.loop.last_full_run_at).to.be.a('number');
    expect((await core.get('/api/v1/overview')).data.dns).to.include({ publishing: 'on', failing: 0 });
  });

  it('tests the PowerDNS connection: version, and a key that is refused', async () => {
    const answer = await core.post('/api/v1/settings/test/powerdns', undefined);
    expect(answer.data).to.include({ configured: true, reachable: true, key_accepted: true, server_found: true, version: '4.7.3', daemon_type: 'authoritative', error: null });
    const wrongKey = await TestCore.start({ ...pdns.env, CDN_POWERDNS_API_KEY: 'not-the-key', CDN_SYNC_INTERVAL_SECONDS: '3600' });
    try {
      const refused = await wrongKey.post('/api/v1/settings/test/powerdns', undefined);
      expect(refused.data).to.include({ configured: true, reachable: true, key_accepted: false });
      expect(refused.data.error).to.match(/401/);
      // The refused key stops every run before any zone: a critical warning says so.
      const warning = await eventually('the publishing warning', async () => (await wrongKey.get('/api/v1/overview/warnings')).data.warnings.find((item: Json) => item.code === 'dns_publishing_failing'));
      expect(warning).to.include({ severity: 'critical' });
      expect(warning.message).to.match(/^DNS publishing to PowerDNS fails: GET \/zones: 401/);
      expect(await wrongKey.db.dnsSyncEvent.count()).to.equal(0);
    } finally {
      await wrongKey.stop();
    }
    const unconfigured = await TestCore.start();
    try {
      const off = await unconfigured.post('/api/v1/settings/test/powerdns', undefined);
      expect(off.data).to.include({ configured: false, reachable: false });
      expect(off.data.error).to.match(/CDN_POWERDNS_API_URL is not set/);
      expect((await unconfigured.get('/cdn-health')).dns).to.deep.equal({ publishing: 'off', ok: false, zones: 0, in_sync: 0, pending: 0, failing: 0, last_synced_at: null });
      expect((await unconfigured.get('/api/v1/overview')).data.dns).to.include({ publishing: 'off' });
      expect((await unconfigured.get('/api/v1/readiness')).dns).to.include({ publishing: 'off', loop: null });
      const plain = await unconfigured.createDomain('unpublished.test');
      expect((await unconfigured.get(`/api/v1/domains/${plain.id}/dns/sync`)).data).to.deep.include({ status: 'off', recent_events: [] });
    } finally {
      await unconfigured.stop();
    }
  });
});

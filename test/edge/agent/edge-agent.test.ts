import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import pino from 'pino';
import { loadConfig } from '../../../src/config/load.js';
import { EdgeAgent, resolveEdgeId } from '../../../src/edge/agent/edge-agent.js';
import { heartbeatBody, registerFields, type HeartbeatInfo } from '../../../src/edge/agent/heartbeat.js';
import { eventually } from '../../support/eventually.js';
import { TestCore, type Json } from '../../support/core.js';
import { CoreProxy } from './core-proxy.js';

const EDGE_TOKEN = 'cdnedge_agent-composition-tests-0123456789';
const logger = pino({ level: 'silent' });

describe('edge agent: edge id and heartbeat bodies', () => {
  it('uses CDN_EDGE_ID when set, else the hostname with other characters replaced and cut to 128', () => {
    expect(resolveEdgeId('edge-fra-1', 'ignored')).to.equal('edge-fra-1');
    expect(resolveEdgeId(undefined, 'edge 1.local')).to.equal('edge-1.local');
    expect(resolveEdgeId(undefined, 'ü'.repeat(200))).to.equal('-'.repeat(128));
    expect(resolveEdgeId('', 'host_name')).to.equal('host_name');
  });

  const INFO: HeartbeatInfo = { hostname: 'edge-1.example', version: '0.1.0', healthy: true, configVersion: 3, configChecksum: null, configError: null, purgeAcks: [], purgeFailures: [] };

  it('omits empty or unusable optional fields instead of failing every request with 422', () => {
    expect(registerFields('edge-1', { ...INFO, publicIp: '', region: '  ' })).to.deep.equal({ edge_id: 'edge-1', hostname: 'edge-1.example', version: '0.1.0' });
    expect(registerFields('edge-1', { ...INFO, publicIp: 'not-an-ip', region: 'eu\ncentral' })).to.deep.equal({ edge_id: 'edge-1', hostname: 'edge-1.example', version: '0.1.0' });
    expect(registerFields('edge-1', { ...INFO, publicIp: '2001:db8::1', region: 'eu-central' })).to.include({ public_ip: '2001:db8::1', region: 'eu-central' });
    expect(registerFields('edge-1', { ...INFO, httpsPort: 0 })).to.not.have.property('https_port');
    expect(registerFields('edge-1', { ...INFO, httpsPort: 8443 })).to.include({ https_port: 8443 });
  });

  it('reports each purge ack once and at most 1000 of each kind, leaving the lists out when empty', () => {
    expect(heartbeatBody('edge-1', INFO).body).to.deep.equal({ edge_id: 'edge-1', hostname: 'edge-1.example', version: '0.1.0', healthy: true, config_version: 3, config_checksum: null, config_error: null });
    const many = Array.from({ length: 1200 }, (_, i) => `purge-${i}`);
    const { body, acks, failures } = heartbeatBody('edge-1', { ...INFO, purgeAcks: ['a', 'a', ...many], purgeFailures: many.map((id) => ({ id, error: 'disk full' })) });
    expect(acks).to.have.length(1000);
    expect(acks[0]).to.equal('a');
    expect(failures).to.have.length(1000);
    expect((body.purge_acks as string[]).length).to.equal(1000);
  });
});

describe('edge agent: the whole agent against a real core', () => {
  let core: TestCore;
  let proxy: CoreProxy;
  let dataDir: string;
  let domain: Json;
  const agents: EdgeAgent[] = [];

  const newAgent = (env: Record<string, string> = {}) => {
    const config = loadConfig({
      CDN_EDGE_CORE_URL: proxy.url,
      CDN_EDGE_ID: 'edge-agent-1',
      CDN_EDGE_TOKEN: EDGE_TOKEN,
      CDN_EDGE_DATA_DIR: dataDir,
      CDN_EDGE_CONFIG_REFRESH_SECONDS: '1',
      CDN_EDGE_HEARTBEAT_SECONDS: '1',
      CDN_EDGE_TELEMETRY_FLUSH_SECONDS: '1',
      CDN_EDGE_REGION: 'eu-central',
      CDN_EDGE_PUBLIC_IP: '203.0.113.9',
      ...env,
    });
    const agent = new EdgeAgent({ config, logger, hostname: 'edge-agent-1.example', timeoutMs: 5000 });
    agents.push(agent);
    return agent;
  };
  const purgeStatus = async (id: string) => (await core.get(`/api/v1/domains/${domain.id}/cache/purge-requests/${id}`)).data;
  const rebuild = async () => (await core.post('/api/v1/config/snapshots/rebuild', undefined)).data.version as number;

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN });
    domain = await core.createDomain('agent.example');
    await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true });
    await rebuild();
    proxy = await CoreProxy.start(core.url);
  });
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'edge-agent-'));
    proxy.mode = 'pass';
    proxy.answer = undefined;
  });
  afterEach(async () => {
    for (const agent of agents.splice(0)) await agent.stop(1000);
    await rm(dataDir, { recursive: true, force: true });
  });
  after(async () => {
    await proxy.close();
    await core.stop();
  });

  it('pulls the config, registers, and heartbeats with the version it serves', async () => {
    const agent = newAgent();
    const snapshots: number[] = [];
    agent.on('snapshot', (pulled) => snapshots.push(pulled.version));
    await agent.start();
    const node = await eventually('a heartbeat with a config version', async () => {
      const found = (await core.get('/api/v1/edge/nodes')).data.find((item: Json) => item.edge_id === 'edge-agent-1');
      return found?.config_version ? found : undefined;
    });
    expect(node).to.include({ hostname: 'edge-agent-1.example', region: 'eu-central', public_ip: '203.0.113.9', https_port: 8443, health_status: 'healthy', config_version: snapshots[0], in_pool: true });
    // The agent learns it is in the pool from that heartbeat's answer, which may arrive after the row is committed.
    await eventually('the heartbeat answer saying the edge is in the pool', async () => (agent.status().heartbeat.in_pool ? true : undefined));
    const status = agent.status();
    expect(status.edge_id).to.equal('edge-agent-1');
    expect(status.config).to.include({ version: snapshots[0], source: 'core' });
    expect(status.heartbeat).to.include({ registered: true, consecutive_failures: 0, in_pool: true });
    expect(Object.keys(status.telemetry)).to.deep.equal(['usage', 'security', 'origin_health']);
    expect(proxy.to('/api/v1/edge/register')[0].body).to.deep.equal({ edge_id: 'edge-agent-1', hostname: 'edge-agent-1.example', public_ip: '203.0.113.9', https_port: 8443, region: 'eu-central', version: '0.1.0' });
  });

  it('carries purge acknowledgements on a heartbeat until the core accepted one, then forgets them', async () => {
    const agent = newAgent({ CDN_EDGE_HEARTBEAT_SECONDS: '3600' });
    await agent.start();
    expect(await agent.beatNow()).to.equal(true);
    const purge = (await core.post(`/api/v1/domains/${domain.id}/cache/purge`, { scope: 'prefix', value: '/img/' }, 201)).data;
    await rebuild();
    // The agent's long-poll may have brought the new version before this pull.
    expect((await agent.pullNow()).outcome).to.be.oneOf(['updated', 'unchanged']);
    expect(agent.currentSnapshot()!.snapshot.purges.map((item) => item.id)).to.include(purge.id);

    agent.setPurgeResults([purge.id], []);
    proxy.mode = 'down';
    expect(await agent.beatNow()).to.equal(false);
    expect(agent.status().purges.pending_acks).to.equal(1);
    expect(agent.status().heartbeat.consecutive_failures).to.equal(1);

    proxy.mode = 'pass';
    expect(await agent.beatNow()).to.equal(true);
    expect(proxy.to('/api/v1/edge/heartbeat').at(-1)!.body.purge_acks).to.deep.equal([purge.id]);
    expect(agent.status().purges.pending_acks).to.equal(0);
    expect((await purgeStatus(purge.id)).acknowledged_by.map((ack: Json) => ack.edge_id)).to.include('edge-agent-1');

    await agent.beatNow();
    expect(proxy.to('/api/v1/edge/heartbeat').at(-1)!.body).to.not.have.property('purge_acks');
  });

  it('reports a purge it could not carry out, which fails the purge', async () => {
    const agent = newAgent({ CDN_EDGE_HEARTBEAT_SECONDS: '3600' });
    await agent.start();
    const purge = (await core.post(`/api/v1/domains/${domain.id}/cache/purge`, { scope: 'prefix', value: '/css/' }, 201)).data;
    await rebuild();
    agent.setPurgeResults([], [{ id: purge.id, error: 'cache volume\nis read-only' }]);
    expect(await agent.beatNow()).to.equal(true);
    expect(await purgeStatus(purge.id)).to.include({ status: 'failed', error: 'edge edge-agent-1: cache volume is read-only' });
    expect(agent.status().purges.pending_failures).to.equal(0);
  });

  it('folds usage over the queue bound into per-minute totals and ships every request, drops telemetry over the bound of the other queues, and flushes on stop', async () => {
    await core.db.usageEvent.deleteMany();
    await core.db.securityEvent.deleteMany();
    const agent = newAgent({ CDN_EDGE_TELEMETRY_QUEUE_MAX_ITEMS: '5', CDN_EDGE_TELEMETRY_FLUSH_SECONDS: '3600' });
    await agent.start();
    const now = Math.floor(Date.now() / 1000);
    const events = Array.from({ length: 8 }, (_, i) => ({ domain: 'agent.example', path: `/p/${i}`, status: 200, bytes: 10, count: i + 1, cache_status: 'HIT', timestamp: now }));
    expect(agent.enqueueUsage(events)).to.equal(5);
    const security = Array.from({ length: 6 }, () => ({ domain: 'agent.example', kind: 'waf' as const, action: 'block' as const, timestamp: now, rule_id: 'r1' }));
    expect(agent.enqueueSecurity(security)).to.equal(5);
    expect(agent.status().telemetry.usage).to.include({ depth: 6, drops: 6 + 7 + 8, lost_requests: 0 });
    expect(agent.status().telemetry.security).to.include({ depth: 5, drops: 1 });
    await agent.stop(5000);
    const rows = await core.db.usageEvent.findMany({ orderBy: { id: 'asc' } });
    expect(rows.map((row) => [row.path, row.count])).to.deep.equal([...[1, 2, 3, 4, 5].map((count) => [`/p/${count - 1}`, count]), ['/(other)', 21]]);
    expect(rows.reduce((sum, row) => sum + row.bytes, 0n)).to.equal(80n);
    expect(await core.db.securityEvent.count()).to.equal(5);
    expect(agent.status().telemetry.usage).to.include({ depth: 0, sent: 6, drops: 21 });
  });

  it('starts serving the last-known-good snapshot while the core is down', async () => {
    const first = newAgent();
    await first.start();
    await eventually('a snapshot', async () => first.currentSnapshot());
    await first.stop(1000);

    proxy.mode = 'down';
    const restarted = newAgent();
    const sources: string[] = [];
    restarted.on('snapshot', (_pulled, source) => sources.push(source));
    await restarted.start();
    expect(sources).to.deep.equal(['disk']);
    expect(restarted.currentSnapshot()!.checksum).to.equal(first.currentSnapshot()!.checksum);
  });

  it('reports itself unhealthy while it has no snapshot to serve', async () => {
    proxy.answer = (seen) => (seen.path.startsWith('/api/v1/edge/config') ? { status: 503, body: { error: 'database unavailable' } } : undefined);
    const agent = newAgent({ CDN_EDGE_HEARTBEAT_SECONDS: '3600' });
    await agent.start();
    expect(await agent.beatNow()).to.equal(true);
    expect(proxy.to('/api/v1/edge/heartbeat').at(-1)!.body).to.include({ healthy: false, config_version: null });
    expect(agent.status().config).to.include({ version: null, last_pull_error: 'core answered 503 database unavailable' });
  });

  it('refuses to start without an edge token', () => {
    expect(() => newAgent({ CDN_EDGE_TOKEN: '' })).to.throw(/CDN_EDGE_TOKEN is required/);
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { DiskCacheIndex } from '../../../src/edge/cache/disk-index.js';
import { MemoryTier } from '../../../src/edge/cache/memory-tier.js';
import type { ActiveConfig } from '../../../src/edge/config/active-config.js';
import { EdgeMetrics } from '../../../src/edge/metrics/edge-scrape.js';
import { WorkerMetrics } from '../../../src/edge/metrics/worker-metrics.js';
import { OriginBreakers } from '../../../src/edge/origin/breaker.js';
import type { AgentStatusView } from '../../../src/edge/worker/messages.js';
import type { SnapshotOrigin } from '../../../src/shared/snapshot.js';
import { parseExposition, valueOf, type Sample } from '../../support/prometheus-text.js';

const ORIGIN = { id: 'o-1', scheme: 'http', host: 'origin.test', port: 8080, circuit_breaker: { failure_threshold: 1, window_seconds: 10, cooldown_seconds: 60 } } as unknown as SnapshotOrigin;
// The part of an active config the breaker gauges read: its domains and their origins.
const ACTIVE = { domains: [{ apex: 'listed.example', origins: [ORIGIN] }, { apex: 'other.example', origins: [] }] } as unknown as ActiveConfig;
// Made when a scrape reads it: the snapshot was activated 30 s before (mocha loads every file long before it runs this one).
const status = (): AgentStatusView => ({
  edge_id: 'edge-1',
  config: { version: 7, loaded_at: Math.floor(Date.now() / 1000) - 30, stale_seconds: 0, reloads: 3, reload_failures: 1, pull_failures: 2 },
  heartbeat: {},
  telemetry: { usage: { depth: 5, drops: 1, failures: 0, sent: 10 }, security: { depth: 0, drops: 2, failures: 3, sent: 4 }, origin_health: { depth: 1, drops: 0, failures: 0, sent: 0 } },
  purges: { applied: 0, failed: 0, pending: 0 },
  workers: { configured: 2, alive: 2, on_active_version: 1 },
  core_version: 7,
});

function worker(): { metrics: WorkerMetrics; breakers: OriginBreakers } {
  const metrics = new WorkerMetrics(['listed.example']);
  const breakers = new OriginBreakers();
  metrics.watch({ memory: new MemoryTier(1 << 20), breakers, active: () => ACTIVE });
  return { metrics, breakers };
}

describe('edge worker metrics, added up by the primary', () => {
  let dir: string;
  let disk: DiskCacheIndex;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cdn-edge-metrics-'));
    disk = new DiskCacheIndex(dir, 1 << 20);
    await disk.load();
  });
  after(() => rm(dir, { recursive: true, force: true }));

  async function scrape(workers: WorkerMetrics[], missing = 0): Promise<Sample[]> {
    const edge = new EdgeMetrics({ status, disk }, async () => ({ metrics: await Promise.all(workers.map((one) => one.registry.getMetricsAsJSON())), missing }));
    return parseExposition(await edge.exposition());
  }

  it('counts requests by status class and cache status: a status from 600 as other, a client that left as 4xx', async () => {
    const { metrics } = worker();
    metrics.request(200, 'HIT', 'other.example');
    metrics.request(999, 'MISS', undefined);
    metrics.request(499, 'NONE', undefined);
    const samples = await scrape([metrics]);
    expect(valueOf(samples, 'cdn_edge_requests_total', { status_class: '2xx', cache_status: 'hit' })).to.equal(1);
    expect(valueOf(samples, 'cdn_edge_requests_total', { status_class: 'other', cache_status: 'miss' })).to.equal(1);
    expect(valueOf(samples, 'cdn_edge_requests_total', { status_class: '4xx', cache_status: 'none' })).to.equal(1);
    expect(samples.filter((sample) => sample.name === 'cdn_edge_requests_total')).to.have.length(36);
  });

  it('counts a domain apart only when it is listed', async () => {
    const { metrics } = worker();
    metrics.request(200, 'HIT', 'listed.example');
    metrics.request(200, 'HIT', 'other.example');
    const samples = await scrape([metrics]);
    expect(valueOf(samples, 'cdn_edge_domain_requests_total', { domain: 'listed.example', status_class: '2xx', cache_status: 'hit' })).to.equal(1);
    expect(samples.filter((sample) => sample.name === 'cdn_edge_domain_requests_total' && sample.labels.domain !== 'listed.example')).to.deep.equal([]);
  });

  it('sums the counters and the latency histogram of two workers', async () => {
    const [first, second] = [worker().metrics, worker().metrics];
    first.request(200, 'HIT', 'listed.example');
    second.request(200, 'HIT', 'listed.example');
    second.request(200, 'MISS', 'listed.example');
    first.originResponded(0.02);
    second.originResponded(3);
    first.originFailed('timeout');
    second.originFailed('timeout');
    second.originRetry('refused_by_budget');
    const samples = await scrape([first, second]);
    expect(valueOf(samples, 'cdn_edge_requests_total', { status_class: '2xx', cache_status: 'hit' })).to.equal(2);
    expect(valueOf(samples, 'cdn_edge_origin_response_seconds_count')).to.equal(2);
    expect(valueOf(samples, 'cdn_edge_origin_response_seconds_bucket', { le: '0.025' })).to.equal(1);
    expect(valueOf(samples, 'cdn_edge_origin_errors_total', { kind: 'timeout' })).to.equal(2);
    expect(valueOf(samples, 'cdn_edge_origin_retries_total', { outcome: 'refused_by_budget' })).to.equal(1);
    expect(valueOf(samples, 'cdn_edge_cache_hit_ratio')).to.be.closeTo(2 / 3, 1e-9);
  });

  it('counts security decisions by kind and action, and challenges issued, passed and failed', async () => {
    const { metrics } = worker();
    metrics.findings([{ kind: 'rate_limit', action: 'challenge', rule_id: 'r' }]);
    metrics.findings([{ kind: 'challenge', action: 'challenge', rule_id: null }, { kind: 'waf', action: 'log', rule_id: 'w' }]);
    metrics.findings([{ kind: 'challenge', action: 'pass', rule_id: null }]);
    metrics.findings([{ kind: 'challenge', action: 'block', rule_id: null }]);
    const samples = await scrape([metrics]);
    expect(valueOf(samples, 'cdn_edge_security_decisions_total', { kind: 'rate_limit', action: 'challenge' })).to.equal(1);
    expect(valueOf(samples, 'cdn_edge_security_decisions_total', { kind: 'waf', action: 'log' })).to.equal(1);
    expect(valueOf(samples, 'cdn_edge_security_decisions_total', { kind: 'waf', action: 'block' })).to.equal(0);
    expect(valueOf(samples, 'cdn_edge_challenges_total', { outcome: 'issued' })).to.equal(2);
    expect(valueOf(samples, 'cdn_edge_challenges_total', { outcome: 'passed' })).to.equal(1);
    expect(valueOf(samples, 'cdn_edge_challenges_total', { outcome: 'failed' })).to.equal(1);
  });

  it('counts breakers of every worker by state, and shows a listed origin\'s worst worker', async () => {
    const [healthy, failing] = [worker(), worker()];
    failing.breakers.record(ORIGIN, false, Date.now());
    const samples = await scrape([healthy.metrics, failing.metrics]);
    expect(valueOf(samples, 'cdn_edge_origin_breakers', { state: 'closed' })).to.equal(1);
    expect(valueOf(samples, 'cdn_edge_origin_breakers', { state: 'open' })).to.equal(1);
    expect(valueOf(samples, 'cdn_edge_origin_breaker_state', { domain: 'listed.example', origin: 'http://origin.test:8080' })).to.equal(2);
  });

  it('exposes the agent\'s own counters and gauges, and how many workers did not answer', async () => {
    const samples = await scrape([], 1);
    expect(valueOf(samples, 'cdn_edge_config_version')).to.equal(7);
    expect(valueOf(samples, 'cdn_edge_config_age_seconds')).to.be.within(29, 40);
    expect(valueOf(samples, 'cdn_edge_config_reloads_total', { result: 'failure' })).to.equal(1);
    expect(valueOf(samples, 'cdn_edge_config_pull_failures_total')).to.equal(2);
    expect(valueOf(samples, 'cdn_edge_telemetry_queue_depth', { stream: 'usage' })).to.equal(5);
    expect(valueOf(samples, 'cdn_edge_telemetry_drops_total', { stream: 'security' })).to.equal(2);
    expect(valueOf(samples, 'cdn_edge_telemetry_push_failures_total', { stream: 'security' })).to.equal(3);
    expect(valueOf(samples, 'cdn_edge_workers', { state: 'on_active_version' })).to.equal(1);
    expect(valueOf(samples, 'cdn_edge_cache_objects', { tier: 'disk' })).to.equal(0);
    expect(valueOf(samples, 'cdn_edge_metrics_workers_missing')).to.equal(1);
    expect(valueOf(samples, 'cdn_edge_cache_hit_ratio')).to.be.NaN;
  });
});

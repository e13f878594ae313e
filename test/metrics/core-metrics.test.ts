import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { signedHeaders } from '../../src/shared/signing.js';
import { TestCore, type Json } from '../support/core.js';
import { eventually } from '../support/eventually.js';
import { GitopsRepo } from '../support/gitops-repo.js';
import { PowerDnsServer, powerDnsMissing } from '../support/powerdns.js';
import { queriedMetricsMissingFrom } from '../support/monitoring-queries.js';
import { documentedCoreMetrics, parseExposition, samplesOf, valueOf, type Sample } from '../support/prometheus-text.js';

const APEX = 'metrics.example';
const EDGE_TOKEN = 'cdnedge_metrics-test-token-0123456789';
const EDGE_ID = 'metrics-edge';
const DAY_MS = 86_400_000;
const DESIRED = `domain: ${APEX}
records:
  - { type: A, name: www, content: 192.0.2.10 }
origins:
  - { host: origin.${APEX} }
`;

// A real core with everything that counts switched on (publisher, DNS sync to a real PowerDNS, the
// in-core GitOps controller on a real git repository), traffic of each kind sent to it over HTTP,
// then /metrics scraped over HTTP as Prometheus would.
describe('Core metrics at /metrics after traffic', function () {
  this.timeout(120000);
  let pdns: PowerDnsServer;
  let repo: GitopsRepo;
  let data: string;
  let core: TestCore;
  let domainId: string;
  let activeVersion: number;

  const scrape = async (): Promise<Sample[]> => {
    const response = await fetch(`${core.url}/metrics`);
    expect(response.status).to.equal(200);
    return parseExposition(await response.text());
  };
  const whenScraped = (what: string, holds: (samples: Sample[]) => boolean) => eventually(what, async () => ((samples) => (holds(samples) ? samples : undefined))(await scrape()), 30000);
  const signedPost = async (pathname: string, body: unknown, status = 200): Promise<Json> => {
    const text = JSON.stringify(body);
    const headers = signedHeaders({ token: EDGE_TOKEN, edgeId: EDGE_ID, method: 'POST', pathWithQuery: pathname, body: text });
    const response = await fetch(`${core.url}${pathname}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: text });
    expect(response.status, await response.clone().text()).to.equal(status);
    return response.json();
  };
  const runs = async (): Promise<Json[]> => (await core.get('/api/v1/gitops/runs?limit=100')).data;

  // A heartbeat keeps the edge fresh (CDN_EDGE_HEARTBEAT_FRESH_SECONDS) for the tests that count it.
  const heartbeat = () => signedPost('/api/v1/edge/heartbeat', { edge_id: EDGE_ID, healthy: true, config_version: activeVersion });

  async function sendEdgeTraffic(originId: string): Promise<void> {
    const now = Math.floor(Date.now() / 1000) - 60;
    await signedPost('/api/v1/edge/register', { edge_id: EDGE_ID, hostname: 'edge-1', public_ip: '192.0.2.50', region: 'eu', country: 'DE', version: '1.0.0' });
    await heartbeat();
    const event = { domain: APEX, path: '/', status: 200, bytes: 10, cache_status: 'HIT', client_country: 'DE', client_ip: '192.0.2.44' };
    const usage = { idempotency_key: 'metrics-usage-1', events: [{ ...event, timestamp: now }, { ...event, timestamp: now + 1 }, { ...event, timestamp: now + 30 * DAY_MS / 1000 }] };
    await signedPost('/api/v1/collector/usage', usage);
    await signedPost('/api/v1/collector/usage', usage);
    const security = { idempotency_key: 'metrics-security-1', queue: 'security', events: [{ domain: APEX, kind: 'waf', action: 'block', rule_id: 'rule-1', method: 'GET', path: '/x', client_country: 'DE', client_ip: '192.0.2.9', user_agent: 'test', details: {}, timestamp: now }] };
    await signedPost('/api/v1/collector/security-events', security);
    await signedPost('/api/v1/collector/origin-health', { observations: [{ origin_id: originId, source: 'probe', success: true, http_status: 200, latency_ms: 10, jitter_ms: 1, timestamp: now }] });
  }

  // What an ACME order and the scheduler leave behind (a CA is outside this suite): an active certificate and a finished job.
  async function storeCertificate(): Promise<void> {
    const now = Date.now();
    await core.db.sslCertificate.create({ data: { domain_id: domainId, source: 'manual', status: 'active', hostnames: [APEX], not_before: new Date(now - DAY_MS), not_after: new Date(now + 30 * DAY_MS) } });
    await core.db.sslJob.create({ data: { domain_id: domainId, kind: 'issue', status: 'succeeded', hostnames: [APEX], finished_at: new Date(now) } });
  }

  // An API change to a git-owned origin, then "reconcile now": the run reports it as drift.
  async function makeDrift(): Promise<void> {
    const [origin] = (await core.get(`/api/v1/domains/${domainId}/origins`)).data;
    await core.patch(`/api/v1/domains/${domainId}/origins/${origin.id}`, { weight: 7 });
    const before = (await runs())[0].id;
    await core.post('/api/v1/gitops/reconcile', { repo: repo.url }, 202);
    await eventually('the run that finds the drift', async () => (await runs()).find((run) => Number(run.id) > Number(before) && run.drift.length > 0));
  }

  before(async function () {
    const missing = powerDnsMissing();
    if (missing) throw new Error(missing);
    pdns = await PowerDnsServer.start();
    // The safety gate from the first live item on, refusing any delete above 10%.
    repo = await GitopsRepo.create({ [`domains/${APEX}.yaml`]: DESIRED, 'cdn-gitops.yaml': 'max_delete_percent: 10\nmin_live_items: 1\n' });
    data = await mkdtemp(path.join(tmpdir(), 'cdn-metrics-'));
    core = await TestCore.start({
      ...pdns.env,
      CDN_PUBLISH_ENABLED: 'true',
      CDN_SYNC_INTERVAL_SECONDS: '1',
      CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN,
      CDN_GITOPS_REPO: repo.url,
      CDN_GITOPS_BRANCH: 'main',
      CDN_GITOPS_INTERVAL_SECONDS: '3600',
      CDN_DATA_DIR: data,
      CDN_DEFAULT_NAMESERVERS: 'ns1.platform.test,ns2.platform.test',
      CDN_EDGE_HEARTBEAT_FRESH_SECONDS: '600',
    });
    await eventually('the first GitOps run', async () => (await runs()).find((run) => run.status === 'applied'));
    const domain = (await core.get(`/api/v1/domains?q=${APEX}`)).data[0];
    domainId = domain.id;
    await whenScraped('a published snapshot', (samples) => (valueOf(samples, 'cdn_snapshot_publishes_total', { outcome: 'published' }) ?? 0) >= 1);
    activeVersion = (await core.db.publishState.findUniqueOrThrow({ where: { id: 1 } })).active_version!;
    const [origin] = (await core.get(`/api/v1/domains/${domainId}/origins`)).data;
    await sendEdgeTraffic(origin.id);
    await storeCertificate();
    await makeDrift();
    await core.get('/api/v1/domains/no-such-domain', 404);
    await core.post('/api/v1/domains', { domain: 'not a domain' }, 422);
    await core.core.connection.pool.query('SELECT 1 / 0').catch(() => undefined);
  });

  after(async () => {
    await core?.stop();
    await pdns?.stop();
    await repo?.remove();
    if (data) await rm(data, { recursive: true, force: true });
  });

  it('answers in the Prometheus text format, with the process metrics of Node', async () => {
    const response = await fetch(`${core.url}/metrics`);
    expect(response.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(text).to.match(/^# HELP cdn_core_http_requests_total /m);
    expect(valueOf(parseExposition(text), 'process_cpu_seconds_total')).to.be.greaterThan(0);
    expect(valueOf(parseExposition(text), 'nodejs_eventloop_lag_seconds')).to.be.at.least(0);
  });

  it('serves every documented metric, each with exactly its documented labels', async () => {
    const documented = documentedCoreMetrics();
    expect(documented.length).to.be.greaterThan(25);
    await heartbeat();
    const samples = await whenScraped('every documented metric', (scraped) => documented.every((metric) => samplesOf(scraped, metric).length > 0));
    for (const metric of documented) {
      for (const sample of samplesOf(samples, metric)) expect(Object.keys(sample.labels).sort(), metric.name).to.deep.equal([...metric.labels].sort());
    }
  });

  it('serves every core metric the alert rules and the Grafana dashboard (deploy/) query', async () => {
    await heartbeat();
    const samples = await whenScraped('every queried core metric', (scraped) => queriedMetricsMissingFrom(scraped, false).length === 0).catch(() => scrape());
    expect(queriedMetricsMissingFrom(samples, false)).to.deep.equal([]);
  });

  it('counts requests under their route template, method and status class, never the raw path', async () => {
    const samples = await scrape();
    expect(valueOf(samples, 'cdn_core_http_requests_total', { method: 'GET', route: '/api/v1/domains/:domainId', status_class: '4xx' })).to.be.at.least(1);
    expect(valueOf(samples, 'cdn_core_http_requests_total', { method: 'POST', route: '/api/v1/domains', status_class: '4xx' })).to.be.at.least(1);
    expect(valueOf(samples, 'cdn_core_http_requests_total', { method: 'POST', route: '/api/v1/edge/register', status_class: '2xx' })).to.equal(1);
    expect(valueOf(samples, 'cdn_core_http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/edge/register', status_class: '2xx' })).to.equal(1);
    expect(valueOf(samples, 'cdn_core_http_request_duration_seconds_sum', { method: 'POST', route: '/api/v1/edge/register', status_class: '2xx' })).to.be.within(0.0001, 10);
    const routes = samples.filter((sample) => sample.name === 'cdn_core_http_requests_total').map((sample) => sample.labels.route);
    expect(routes.filter((route) => route.includes('no-such-domain') || route.includes(domainId))).to.deep.equal([]);
  });

  it('reports the pool and the failed query', async () => {
    const samples = await scrape();
    expect(valueOf(samples, 'cdn_db_pool_max_connections')).to.equal(10);
    expect(valueOf(samples, 'cdn_db_pool_connections', { state: 'idle' })! + valueOf(samples, 'cdn_db_pool_connections', { state: 'in_use' })!).to.be.within(1, 10);
    expect(valueOf(samples, 'cdn_db_pool_waiting_requests')).to.equal(0);
    // SQLSTATE 22012, division by zero: class 22 (data exception).
    expect(valueOf(samples, 'cdn_db_query_errors_total', { sqlstate_class: '22' })).to.be.at.least(1);
  });

  it('reports the GitOps runs, their duration and the drift the last one found', async () => {
    const samples = await scrape();
    expect(valueOf(samples, 'cdn_gitops_runs_total', { status: 'applied' })).to.be.at.least(1);
    const runsCounted = samples.filter((sample) => sample.name === 'cdn_gitops_runs_total').reduce((sum, sample) => sum + sample.value, 0);
    expect(runsCounted).to.equal((await runs()).length);
    expect(valueOf(samples, 'cdn_gitops_run_duration_seconds_count', { status: 'applied' })).to.equal(valueOf(samples, 'cdn_gitops_runs_total', { status: 'applied' }));
    expect(valueOf(samples, 'cdn_gitops_drift_items')).to.equal(1);
    expect(valueOf(samples, 'cdn_gitops_safety_refusals_total')).to.equal(0);
  });

  it('counts a plan the safety gate refused', async () => {
    await repo.commit('drop the record', { [`domains/${APEX}.yaml`]: DESIRED.replace(/records:\n.*\n/, 'records: []\n') });
    await core.post('/api/v1/gitops/reconcile', { repo: repo.url }, 202);
    await eventually('the refused run', async () => (await runs()).find((run) => run.status === 'refused'));
    const samples = await scrape();
    expect(valueOf(samples, 'cdn_gitops_safety_refusals_total')).to.equal(1);
    expect(valueOf(samples, 'cdn_gitops_runs_total', { status: 'refused' })).to.equal(1);
    expect(valueOf(samples, 'cdn_gitops_run_duration_seconds_count', { status: 'refused' })).to.equal(1);
  });

  it('reports the snapshot builds: count, duration, bytes and version', async () => {
    const samples = await scrape();
    const active = (await core.db.publishState.findUniqueOrThrow({ where: { id: 1 } })).active_version!;
    const stored = await core.db.configSnapshot.findUniqueOrThrow({ where: { version: active } });
    expect(valueOf(samples, 'cdn_snapshot_publishes_total', { outcome: 'published' })).to.equal(active);
    expect(valueOf(samples, 'cdn_snapshot_build_duration_seconds_count')).to.equal(active);
    expect(valueOf(samples, 'cdn_snapshot_build_duration_seconds_sum')).to.be.within(0, 60);
    expect(valueOf(samples, 'cdn_snapshot_last_published_version')).to.equal(active);
    expect(valueOf(samples, 'cdn_snapshot_active_version')).to.equal(active);
    expect(valueOf(samples, 'cdn_snapshot_last_bytes')).to.equal(stored.size_bytes);
    expect(valueOf(samples, 'cdn_snapshot_failures_total', { reason: 'error' })).to.equal(0);
  });

  it('reports the DNS sync runs, the zone written and the zone in sync', async () => {
    const samples = await whenScraped('the zone in sync', (scraped) => valueOf(scraped, 'cdn_dns_zones', { status: 'in_sync' }) === 1);
    expect(valueOf(samples, 'cdn_dns_zone_writes_total', { action: 'create' })).to.equal(1);
    expect(valueOf(samples, 'cdn_dns_zone_failures_total', { action: 'create' })).to.equal(0);
    expect(valueOf(samples, 'cdn_dns_sync_runs_total', { kind: 'full', result: 'ok' })! + valueOf(samples, 'cdn_dns_sync_runs_total', { kind: 'changes', result: 'ok' })!).to.be.at.least(1);
    expect(valueOf(samples, 'cdn_dns_zones', { status: 'failing' })).to.equal(0);
  });

  it('reports the SSL jobs by status and the days to the earliest expiry', async () => {
    const samples = await scrape();
    expect(valueOf(samples, 'cdn_ssl_jobs', { status: 'succeeded' })).to.equal(1);
    expect(valueOf(samples, 'cdn_ssl_earliest_expiry_days')).to.be.within(29.9, 30);
  });

  it('counts the ingested events accepted and rejected, and the replayed batch', async () => {
    const samples = await scrape();
    expect(valueOf(samples, 'cdn_ingest_events_total', { stream: 'usage', outcome: 'accepted' })).to.equal(2);
    expect(valueOf(samples, 'cdn_ingest_events_total', { stream: 'usage', outcome: 'rejected' })).to.equal(1);
    expect(valueOf(samples, 'cdn_ingest_duplicate_batches_total', { stream: 'usage' })).to.equal(1);
    expect(valueOf(samples, 'cdn_ingest_events_total', { stream: 'security', outcome: 'accepted' })).to.equal(1);
    expect(valueOf(samples, 'cdn_ingest_events_total', { stream: 'origin_health', outcome: 'accepted' })).to.equal(1);
  });

  it('reports the edge by state and the version it serves', async () => {
    await heartbeat();
    const samples = await whenScraped('the fresh edge', (scraped) => valueOf(scraped, 'cdn_edges', { state: 'in_pool' }) === 1);
    expect(valueOf(samples, 'cdn_edges', { state: 'registered' })).to.equal(1);
    expect(valueOf(samples, 'cdn_edges', { state: 'in_pool' })).to.equal(1);
    expect(valueOf(samples, 'cdn_edges', { state: 'stale' })).to.equal(0);
    expect(valueOf(samples, 'cdn_edges', { state: 'reload_failing' })).to.equal(0);
    const active = (await core.db.publishState.findUniqueOrThrow({ where: { id: 1 } })).active_version!;
    expect(valueOf(samples, 'cdn_edges', { state: 'behind' })).to.equal(active > activeVersion ? 1 : 0);
    expect(samples.filter((sample) => sample.name === 'cdn_edges_by_config_version').map((sample) => [sample.labels.version, sample.value])).to.deep.equal([[String(activeVersion), 1]]);
  });

  it('keeps the request metrics bounded after requests to 1,000 distinct paths', async () => {
    const seriesBefore = (await scrape()).filter((sample) => sample.name === 'cdn_core_http_requests_total').length;
    for (let start = 0; start < 1000; start += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, offset) => {
          const n = start + offset;
          const pathname = n % 3 === 0 ? `/api/v1/domains/d-${n}` : n % 3 === 1 ? `/api/v1/unknown-${n}/x` : `/page-${n}`;
          return fetch(`${core.url}${pathname}`).then((response) => response.arrayBuffer());
        }),
      );
    }
    const samples = (await scrape()).filter((sample) => sample.name === 'cdn_core_http_requests_total');
    // At most the three templates the requests fall under are new: the domain route, unmatched and the dashboard.
    expect(samples.length).to.be.at.most(seriesBefore + 3);
    expect(samples.map((sample) => sample.labels.route).filter((route) => /-\d+/.test(route))).to.deep.equal([]);
    expect(valueOf(samples, 'cdn_core_http_requests_total', { method: 'GET', route: 'unmatched', status_class: '4xx' })).to.be.at.least(333);
    expect(valueOf(samples, 'cdn_core_http_requests_total', { method: 'GET', route: 'dashboard', status_class: '2xx' })).to.be.at.least(333);
  });
});

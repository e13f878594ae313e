import { createServer, type Server } from 'node:net';
import { expect } from 'chai';
import { solvesChallenge } from '../../src/edge/security/challenge-token.js';
import { TestCore } from '../support/core.js';
import { EdgeProcess } from '../support/edge-process.js';
import { createSite, publish, TestOrigin } from '../support/edge-site.js';
import { eventually } from '../support/eventually.js';
import { queriedMetricsMissingFrom } from '../support/monitoring-queries.js';
import { documentedEdgeMetrics, parseExposition, samplesOf, valueOf, type Sample } from '../support/prometheus-text.js';
import type { RawRequest, RawResponse } from '../support/raw-http.js';
import { sendRaw } from '../support/raw-socket.js';

const TOKEN = 'cdnedge_e2e-edge-metrics-0123456789abcd';
const LISTED = 'metrics.example';
const UNLISTED = 'plain.example';
const LOGIN_REQUESTS = 6;

type Tally = Map<string, number>;

const sum = (samples: Sample[], name: string, labels: Record<string, string> = {}): number =>
  samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value)).reduce((total, sample) => total + sample.value, 0);

// Brute-forces the proof of work of a challenge page's token, as the page's script does.
function solve(token: string, level: number): string {
  for (let nonce = 0; ; nonce++) if (solvesChallenge(token, level, String(nonce))) return String(nonce);
}

// A real core, a real `cdn edge` with two workers and a real origin; traffic of each kind sent
// through the edge's customer port, then the metrics port scraped over HTTP as Prometheus would.
describe('Edge metrics on the metrics port after traffic through the edge', function () {
  this.timeout(180000);
  let core: TestCore;
  let origin: TestOrigin;
  let edge: EdgeProcess;
  let version: number;
  /** What the test saw: requests by "status class|cache status", from each answer's status and X-Cache. */
  const seen: Tally = new Map();
  const loginStatuses: number[] = [];

  const scrape = async (): Promise<Sample[]> => {
    const response = await fetch(edge.metricsUrl);
    expect(response.status).to.equal(200);
    return parseExposition(await response.text());
  };
  const whenScraped = (what: string, holds: (samples: Sample[]) => boolean) => eventually(what, async () => ((samples) => (holds(samples) ? samples : undefined))(await scrape()), 30000);

  // A request through the customer port, tallied as the edge should count it.
  async function send(host: string, path: string, init: Omit<RawRequest, 'port' | 'host' | 'path'> = {}): Promise<RawResponse> {
    const response = await edge.request(host, path, init);
    const key = `${Math.floor(response.status / 100)}xx|${String(response.headers['x-cache'] ?? 'none').toLowerCase()}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
    return response;
  }

  async function passChallenge(): Promise<RawResponse> {
    const page = await send(LISTED, '/protected/area');
    expect(page.status).to.equal(403);
    const token = /name="token" value="([^"]+)"/.exec(page.text)![1];
    const body = new URLSearchParams({ token, nonce: solve(token, 2), return: '/protected/area' }).toString();
    return send(LISTED, '/__cdn/challenge', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
  }

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN });
    origin = await TestOrigin.start('metrics', (req, res) => {
      req.resume();
      if (req.url === '/broken') return void req.socket.destroy();
      res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'public, max-age=600' }).end(`origin metrics ${req.url}\n`);
    });
    const site = await createSite(core, LISTED, origin.port, { circuit_breaker_enabled: false });
    await createSite(core, UNLISTED, origin.port, { circuit_breaker_enabled: false });
    const rules = `/api/v1/domains/${site.id}`;
    await core.post(`${rules}/waf-rules`, { name: 'admin', match: { paths: [{ kind: 'prefix', value: '/admin' }] }, action: 'block' }, 201);
    await core.post(`${rules}/waf-rules`, { name: 'protected', match: { paths: [{ kind: 'prefix', value: '/protected' }] }, action: 'challenge', challenge_difficulty: 2 }, 201);
    await core.post(`${rules}/rate-limits`, { name: 'login', match: { paths: [{ kind: 'exact', value: '/login' }] }, requests: 1, period_seconds: 600 }, 201);
    version = await publish(core);
    edge = await EdgeProcess.start({ coreUrl: core.url, token: TOKEN, workers: 2, env: { CDN_EDGE_METRICS_DOMAINS: `${LISTED}, Other.Example` } });
    await edge.waitReady(version);

    await send(LISTED, '/page');
    for (let i = 0; i < 3; i++) await send(LISTED, '/page');
    await send(UNLISTED, '/page');
    expect((await send(LISTED, '/broken')).status).to.equal(502);
    expect((await send(LISTED, '/admin/panel')).status).to.equal(403);
    for (let i = 0; i < LOGIN_REQUESTS; i++) loginStatuses.push((await send(LISTED, '/login')).status);
    expect((await passChallenge()).status).to.equal(303);
    expect((await send('nobody.example', '/')).status).to.equal(404);
  });

  after(async () => {
    await edge?.stop();
    await origin?.stop();
    await core?.stop();
  });

  it('answers in the Prometheus text format on the metrics port, and nothing but /metrics there', async () => {
    const response = await fetch(edge.metricsUrl);
    expect(response.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    expect(await response.text()).to.match(/^# HELP cdn_edge_requests_total /m);
    expect((await fetch(edge.metricsUrl.replace('/metrics', '/ready'))).status).to.equal(404);
    expect((await fetch(edge.metricsUrl, { method: 'POST' })).status).to.equal(405);
  });

  it('leaves /metrics on the customer port to the site: proxied to its origin', async () => {
    const before = origin.count('/metrics');
    const response = await send(LISTED, '/metrics');
    expect(response.status).to.equal(200);
    expect(response.text).to.equal('origin metrics /metrics\n');
    expect(origin.count('/metrics')).to.equal(before + 1);
  });

  it('serves every documented edge metric, each with exactly its documented labels', async () => {
    const documented = documentedEdgeMetrics();
    expect(documented.length).to.be.greaterThan(20);
    const samples = await whenScraped('every documented edge metric', (scraped) => documented.every((metric) => samplesOf(scraped, metric).length > 0));
    for (const metric of documented) {
      for (const sample of samplesOf(samples, metric)) expect(Object.keys(sample.labels).sort(), metric.name).to.deep.equal([...metric.labels].sort());
    }
  });

  it('serves every edge metric the alert rules and the Grafana dashboard (deploy/) query', async () => {
    const samples = await whenScraped('every queried edge metric', (scraped) => queriedMetricsMissingFrom(scraped, true).length === 0).catch(() => scrape());
    expect(queriedMetricsMissingFrom(samples, true)).to.deep.equal([]);
  });

  it('counts every request once across both workers, by status class and cache status', async () => {
    const expected = Object.fromEntries(seen);
    const samples = await whenScraped('the requests sent', (scraped) => sum(scraped, 'cdn_edge_requests_total') === [...seen.values()].reduce((a, b) => a + b, 0));
    const counted = Object.fromEntries(samples.filter((sample) => sample.name === 'cdn_edge_requests_total' && sample.value > 0).map((sample) => [`${sample.labels.status_class}|${sample.labels.cache_status}`, sample.value]));
    expect(counted).to.deep.equal(expected);
    expect(valueOf(samples, 'cdn_edge_requests_total', { status_class: '4xx', cache_status: 'none' })).to.be.at.least(1);
  });

  it('counts the listed domain apart, and no other domain', async () => {
    const samples = await scrape();
    const domains = new Set(samples.filter((sample) => sample.name === 'cdn_edge_domain_requests_total').map((sample) => sample.labels.domain));
    expect([...domains].sort()).to.deep.equal([LISTED, 'other.example']);
    expect(sum(samples, 'cdn_edge_domain_requests_total', { domain: LISTED, status_class: '2xx', cache_status: 'hit' })).to.be.at.least(2);
    expect(sum(samples, 'cdn_edge_domain_requests_total', { domain: 'other.example' })).to.equal(0);
    // Every request but the unlisted site's and the unknown host's.
    expect(sum(samples, 'cdn_edge_domain_requests_total', { domain: LISTED })).to.equal(sum(samples, 'cdn_edge_requests_total') - 2);
  });

  it('counts a listed domain however a raw client spells it: case, trailing dot, port, an absolute-form target over another Host, hop-by-hop headers', async () => {
    const before = sum(await scrape(), 'cdn_edge_domain_requests_total', { domain: LISTED });
    const spellings = [
      `GET /raw-case HTTP/1.1\r\nHost: ${LISTED.toUpperCase()}.:${edge.port}\r\nConnection: close\r\n\r\n`,
      `GET http://${LISTED}/raw-absolute?q=1 HTTP/1.1\r\nHost: ${UNLISTED}\r\nConnection: close\r\n\r\n`,
      `GET /raw-hop?x=%41 HTTP/1.1\r\nHost: ${LISTED}\r\nTE: trailers\r\nX-Hop: 1\r\nConnection: close, X-Hop\r\n\r\n`,
    ];
    for (const bytes of spellings) expect((await sendRaw(edge.port, bytes)).status, bytes.split('\r\n')[0]).to.equal(200);
    const samples = await whenScraped('the raw requests counted', (scraped) => sum(scraped, 'cdn_edge_domain_requests_total', { domain: LISTED }) === before + spellings.length);
    expect(new Set(samples.filter((sample) => sample.name === 'cdn_edge_domain_requests_total').map((sample) => sample.labels.domain))).to.deep.equal(new Set([LISTED, 'other.example']));
  });

  it('reports the hit ratio from the summed counts', async () => {
    const samples = await scrape();
    const lookups = (statuses: string) => statuses.split('|').reduce((total, cache) => total + sum(samples, 'cdn_edge_requests_total', { cache_status: cache }), 0);
    expect(valueOf(samples, 'cdn_edge_cache_hit_ratio')).to.be.closeTo(lookups('hit|stale') / lookups('hit|stale|miss|expired'), 1e-9);
    expect(valueOf(samples, 'cdn_edge_cache_hit_ratio')).to.be.within(0.1, 0.9);
  });

  it('reports the origin: response latency, the failed attempts by kind, the retry and the breakers', async () => {
    const samples = await scrape();
    const misses = sum(samples, 'cdn_edge_requests_total', { cache_status: 'miss' });
    expect(valueOf(samples, 'cdn_edge_origin_response_seconds_count')).to.be.within(1, misses);
    expect(valueOf(samples, 'cdn_edge_origin_response_seconds_sum')).to.be.within(0, 5 * misses);
    expect(valueOf(samples, 'cdn_edge_origin_response_seconds_bucket', { le: '+Inf' })).to.equal(valueOf(samples, 'cdn_edge_origin_response_seconds_count'));
    // One attempt and its retry (max_retries 1) met the reset.
    expect(valueOf(samples, 'cdn_edge_origin_errors_total', { kind: 'connect' })).to.equal(2);
    expect(valueOf(samples, 'cdn_edge_origin_errors_total', { kind: 'timeout' })).to.equal(0);
    expect(valueOf(samples, 'cdn_edge_origin_retries_total', { outcome: 'sent' })).to.equal(1);
    expect(valueOf(samples, 'cdn_edge_origin_retries_total', { outcome: 'refused_by_budget' })).to.equal(0);
    // Two origins, a breaker each in each of two workers; breakers are off on both sites.
    expect(valueOf(samples, 'cdn_edge_origin_breakers', { state: 'closed' })).to.equal(4);
    expect(valueOf(samples, 'cdn_edge_origin_breakers', { state: 'open' })).to.equal(0);
    expect(samples.filter((sample) => sample.name === 'cdn_edge_origin_breaker_state').map((sample) => [sample.labels.domain, sample.labels.origin, sample.value])).to.deep.equal([[LISTED, `http://127.0.0.1:${origin.port}`, 0]]);
  });

  it('counts the WAF block, the rate-limit blocks of both workers, and the challenge issued and passed', async () => {
    const samples = await scrape();
    expect(valueOf(samples, 'cdn_edge_security_decisions_total', { kind: 'waf', action: 'block' })).to.equal(1);
    expect(valueOf(samples, 'cdn_edge_security_decisions_total', { kind: 'waf', action: 'challenge' })).to.equal(1);
    const limited = loginStatuses.filter((status) => status === 429).length;
    expect(limited).to.be.within(LOGIN_REQUESTS - 2, LOGIN_REQUESTS - 1);
    expect(valueOf(samples, 'cdn_edge_security_decisions_total', { kind: 'rate_limit', action: 'block' })).to.equal(limited);
    expect(valueOf(samples, 'cdn_edge_security_decisions_total', { kind: 'challenge', action: 'pass' })).to.equal(1);
    expect(valueOf(samples, 'cdn_edge_challenges_total', { outcome: 'issued' })).to.equal(1);
    expect(valueOf(samples, 'cdn_edge_challenges_total', { outcome: 'passed' })).to.equal(1);
    expect(valueOf(samples, 'cdn_edge_challenges_total', { outcome: 'failed' })).to.equal(0);
  });

  it('reports both cache tiers: objects and bytes in the workers\' memory and on the shared disk', async () => {
    const samples = await whenScraped('the disk tier holding the objects', (scraped) => (valueOf(scraped, 'cdn_edge_cache_objects', { tier: 'disk' }) ?? 0) >= 2);
    expect(valueOf(samples, 'cdn_edge_cache_objects', { tier: 'memory' })).to.be.within(2, 20);
    expect(valueOf(samples, 'cdn_edge_cache_bytes', { tier: 'memory' })).to.be.within(100, 1e6);
    expect(valueOf(samples, 'cdn_edge_cache_bytes', { tier: 'disk' })).to.be.within(100, 1e6);
    expect(valueOf(samples, 'cdn_edge_cache_evictions_total', { tier: 'memory' })).to.equal(0);
    expect(valueOf(samples, 'cdn_edge_cache_evictions_total', { tier: 'disk' })).to.equal(0);
  });

  it('reports the active snapshot, its age and the reloads, from the agent', async () => {
    const samples = await scrape();
    expect(valueOf(samples, 'cdn_edge_config_version')).to.equal(version);
    expect(valueOf(samples, 'cdn_edge_config_age_seconds')).to.be.within(0, 180);
    expect(valueOf(samples, 'cdn_edge_config_stale_seconds')).to.equal(0);
    expect(valueOf(samples, 'cdn_edge_config_reloads_total', { result: 'success' })).to.be.at.least(1);
    expect(valueOf(samples, 'cdn_edge_config_reloads_total', { result: 'failure' })).to.equal(0);
    expect(valueOf(samples, 'cdn_edge_config_pull_failures_total')).to.equal(0);
    expect(valueOf(samples, 'cdn_edge_workers', { state: 'configured' })).to.equal(2);
    expect(valueOf(samples, 'cdn_edge_workers', { state: 'alive' })).to.equal(2);
    expect(valueOf(samples, 'cdn_edge_workers', { state: 'on_active_version' })).to.equal(2);
    expect(valueOf(samples, 'cdn_edge_metrics_workers_missing')).to.equal(0);
  });

  it('reports the telemetry queues: the usage and security events shipped, no drops or failures', async () => {
    const samples = await whenScraped('the events shipped', (scraped) => (valueOf(scraped, 'cdn_edge_telemetry_sent_total', { stream: 'security' }) ?? 0) >= 1 && (valueOf(scraped, 'cdn_edge_telemetry_sent_total', { stream: 'usage' }) ?? 0) >= 1);
    for (const stream of ['usage', 'security', 'origin_health']) {
      expect(valueOf(samples, 'cdn_edge_telemetry_queue_depth', { stream }), stream).to.be.within(0, 100);
      expect(valueOf(samples, 'cdn_edge_telemetry_drops_total', { stream }), stream).to.equal(0);
      expect(valueOf(samples, 'cdn_edge_telemetry_push_failures_total', { stream }), stream).to.equal(0);
    }
  });

  it('adds no series after requests to 1,000 distinct paths and 1,000 distinct hosts', async () => {
    const before = await scrape();
    const total = sum(before, 'cdn_edge_requests_total');
    for (let start = 0; start < 1000; start += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, offset) => edge.request(LISTED, `/path-${start + offset}?q=${start + offset}`)));
      await Promise.all(Array.from({ length: 50 }, (_, offset) => edge.request(`host-${start + offset}.example`, `/p-${start + offset}`)));
    }
    const after = await whenScraped('the 2,000 requests', (scraped) => sum(scraped, 'cdn_edge_requests_total') === total + 2000);
    const series = (samples: Sample[]) => samples.filter((sample) => sample.name.startsWith('cdn_edge_')).map((sample) => `${sample.name}${JSON.stringify(sample.labels)}`).sort();
    expect(series(after)).to.deep.equal(series(before));
    expect(after.flatMap((sample) => Object.values(sample.labels)).filter((value) => /path-|host-|p-\d/.test(value))).to.deep.equal([]);
    expect(sum(after, 'cdn_edge_domain_requests_total', { domain: LISTED }) - sum(before, 'cdn_edge_domain_requests_total', { domain: LISTED })).to.equal(1000);
  });
});

describe('Edge metrics listener', function () {
  this.timeout(60000);
  let taken: Server;
  let edge: EdgeProcess | undefined;
  after(async () => {
    await edge?.stop();
    await new Promise((resolve) => taken?.close(resolve));
  });

  it('stops the edge at start when its port is taken, naming the problem', async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    edge = await EdgeProcess.start({ coreUrl: 'http://127.0.0.1:9', token: TOKEN, workers: 1, waitReady: false, env: { CDN_EDGE_METRICS_PORT: String(port) } });
    const code = edge.child.exitCode ?? (await new Promise((resolve) => edge!.child.once('exit', resolve)));
    expect(code).to.not.equal(0);
    expect(edge.output).to.include('EADDRINUSE');
  });
});

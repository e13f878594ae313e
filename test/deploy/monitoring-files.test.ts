import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { documentedCoreMetrics, documentedEdgeMetrics } from '../support/prometheus-text.js';
import { ALERT_RULES_FILE, alertRules, dashboard, dashboardPanels, metricNamesIn, queriedMetrics } from '../support/monitoring-queries.js';

// deploy/prometheus/cdn-alerts.yml and deploy/grafana/cdn-dashboard.json: their shape, and that
// they query only documented metrics. That every queried metric is in a real scrape is checked by
// test/metrics/core-metrics.test.ts and test/metrics/edge-metrics.test.ts, which run a core and an edge.

const ROOT = new URL('../../', import.meta.url).pathname;
// The process metrics prom-client adds to the core's scrape (docs/metrics.md), which the dashboard may read.
const PROCESS_METRIC = /^(?:process|nodejs)_/;
const HISTOGRAM_SAMPLES = ['_bucket', '_sum', '_count'];

function promtoolAvailable(): boolean {
  return spawnSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' }).status === 0;
}

/** The names a scrape may carry for the documented metrics: a histogram's as its _bucket, _sum and _count. */
function documentedSampleNames(): Set<string> {
  const metrics = [...documentedCoreMetrics(), ...documentedEdgeMetrics()];
  return new Set(metrics.flatMap((metric) => (metric.type === 'histogram' ? HISTOGRAM_SAMPLES.map((suffix) => `${metric.name}${suffix}`) : [metric.name])));
}

describe('The metric names a PromQL expression selects', () => {
  it('are the selectors, not functions, aggregations, keywords, label names or Grafana variables', () => {
    const expr = 'histogram_quantile(0.95, sum by (le, route) (rate(cdn_core_http_request_duration_seconds_bucket{route!="/api/v1/edge/config", instance=~"$edge"}[$__rate_interval])))';
    expect(metricNamesIn(expr)).to.deep.equal(['cdn_core_http_request_duration_seconds_bucket']);
  });

  it('finds both sides of binary operators, with on/ignoring/group_left and offsets', () => {
    const expr = 'sum without (instance) (rate(a_total[5m] offset 1h)) / on (job) group_left (tier) max(b:recorded) > bool 0 or c unless ignoring (x) d and 1e3';
    expect(metricNamesIn(expr)).to.deep.equal(['a_total', 'b:recorded', 'c', 'd']);
  });

  it('reads no name from inside strings, even one that looks like a selector', () => {
    expect(metricNamesIn('label_replace(up{job="x"}, "dst", "$1", "src", "(sum)")')).to.deep.equal(['up']);
  });
});

describe('Prometheus alert rules (deploy/prometheus/cdn-alerts.yml)', () => {
  it('alert on expiring certificates, edges behind, DNS sync, GitOps runs and telemetry drops', () => {
    const names = alertRules().map((rule) => rule.alert);
    expect(names).to.include.members(['CdnCertificateExpiring', 'CdnEdgesBehind', 'CdnDnsSyncFailing', 'CdnGitopsRunFailing', 'CdnEdgeTelemetryDrops']);
    expect(new Set(names).size).to.equal(names.length);
  });

  it('give each alert a duration, a severity and annotations saying what to do, pointing at an existing doc', () => {
    for (const rule of alertRules()) {
      expect(rule.for, rule.alert).to.match(/^\d+[smh]$/);
      expect(rule.labels?.severity, rule.alert).to.be.oneOf(['warning', 'critical']);
      expect(rule.annotations?.summary, rule.alert).to.be.a('string').and.not.be.empty;
      expect(rule.annotations?.description, rule.alert).to.match(/docs\/[\w-]+\.md/);
      const doc = rule.annotations?.docs ?? '';
      expect(existsSync(path.join(ROOT, doc.replace(/#.*$/, ''))), `${rule.alert}: ${doc}`).to.equal(true);
    }
  });

  it('pass promtool check rules', function () {
    if (!promtoolAvailable()) {
      console.log('    skipped: promtool is not installed (Debian package prometheus; its install starts a Prometheus server, so .ci/run does not add it)');
      this.skip();
    }
    const check = spawnSync('promtool', ['check', 'rules', path.join(ROOT, ALERT_RULES_FILE)], { encoding: 'utf8' });
    expect(check.status, `${check.stdout}${check.stderr}`).to.equal(0);
    expect(check.stdout).to.include(`SUCCESS: ${alertRules().length} rules found`);
  });
});

describe('Grafana dashboard (deploy/grafana/cdn-dashboard.json)', () => {
  it('reads from the templated datasource in every panel, target and query variable, so it imports anywhere', () => {
    const board = dashboard();
    expect(board.templating.list.find((variable) => variable.name === 'datasource')).to.include({ type: 'datasource', query: 'prometheus' });
    const datasources = [
      ...dashboardPanels(board).filter((panel) => panel.type !== 'row').flatMap((panel) => [panel.datasource, ...(panel.targets ?? []).map((target) => (target as { datasource?: unknown }).datasource)]),
      ...board.templating.list.filter((variable) => variable.type === 'query').map((variable) => variable.datasource),
    ];
    expect(datasources).to.not.be.empty;
    for (const datasource of datasources) expect(datasource).to.deep.equal({ type: 'prometheus', uid: '${datasource}' });
  });

  it('covers the core and the edge fleet', () => {
    const titles = dashboardPanels().map((panel) => panel.title);
    expect(titles).to.include.members(['Request rate by route', 'p95 latency by route', 'Database pool', 'Edges by state', 'Edges by version served', 'DNS zones by status', 'GitOps runs', 'Cache hit ratio', 'Origin latency', 'Telemetry drops and push failures']);
  });
});

describe('The metrics the alert rules and the dashboard query', () => {
  it('are all documented in docs/metrics.md (or are the core process metrics of prom-client)', () => {
    const documented = documentedSampleNames();
    const queried = [...queriedMetrics().keys()];
    expect(queried.length).to.be.greaterThan(40);
    expect(queried.filter((name) => !documented.has(name) && !PROCESS_METRIC.test(name))).to.deep.equal([]);
  });
});

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { expect } from 'chai';
import { documentedCoreMetrics, documentedEdgeMetrics } from '../support/prometheus-text.js';
import { ALERT_RULES_FILE, alertRules, dashboard, dashboardPanels, metricNamesIn, monitoringQueries, queriedMetrics } from '../support/monitoring-queries.js';

// deploy/prometheus/cdn-alerts.yml and deploy/grafana/cdn-dashboard.json: their shape, and that
// they query only documented metrics. That every queried metric is in a real scrape is checked by
// test/metrics/core-metrics.test.ts and test/metrics/edge-metrics.test.ts, which run a core and an edge.

const ROOT = new URL('../../', import.meta.url).pathname;
// The process metrics prom-client adds to the core's scrape (docs/metrics.md), which the dashboard may read.
const PROCESS_METRIC = /^(?:process|nodejs)_/;
const HISTOGRAM_SAMPLES = ['_bucket', '_sum', '_count'];

// What Grafana puts in place of the dashboard's variables before it sends a query.
const GRAFANA_VARIABLES: [RegExp, string][] = [[/\$__rate_interval/g, '1m'], [/\$\w+/g, '.*']];

function promtoolAvailable(): boolean {
  return spawnSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' }).status === 0;
}

function skipWithoutPromtool(context: Mocha.Context): void {
  if (promtoolAvailable()) return;
  console.log('    skipped: promtool is not installed (Debian package prometheus; its install starts a Prometheus server, so .ci/run does not add it)');
  context.skip();
}

/** `promtool check rules` on a rules file; its exit status and output. */
function promtoolCheckRules(file: string): { status: number | null; output: string } {
  const check = spawnSync('promtool', ['check', 'rules', file], { encoding: 'utf8' });
  return { status: check.status, output: `${check.stdout}${check.stderr}` };
}

/** The dashboard's queries as recording rules, its variables replaced as Grafana would, in a rules file promtool can parse. */
function dashboardQueriesAsRules(dir: string): string {
  const queries = monitoringQueries().filter(({ where }) => !where.startsWith(ALERT_RULES_FILE));
  const rules = queries.map(({ expr }, index) => ({ record: `dashboard:query_${index}`, expr: GRAFANA_VARIABLES.reduce((text, [variable, value]) => text.replace(variable, value), expr) }));
  const file = path.join(dir, 'dashboard-queries.yml');
  writeFileSync(file, stringify({ groups: [{ name: 'dashboard', rules }] }));
  return file;
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
    skipWithoutPromtool(this);
    const check = promtoolCheckRules(path.join(ROOT, ALERT_RULES_FILE));
    expect(check.status, check.output).to.equal(0);
    expect(check.output).to.include(`SUCCESS: ${alertRules().length} rules found`);
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

  it('has queries promtool parses as PromQL, its variables replaced as Grafana does', function () {
    skipWithoutPromtool(this);
    const dir = mkdtempSync(path.join(tmpdir(), 'cdn-dashboard-'));
    try {
      const check = promtoolCheckRules(dashboardQueriesAsRules(dir));
      expect(check.status, check.output).to.equal(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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

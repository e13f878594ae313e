import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { documentedEdgeMetrics, type Sample } from './prometheus-text.js';

// The PromQL queries of deploy/prometheus/ and deploy/grafana/, and the metric names they read.

const ROOT = new URL('../../', import.meta.url);
export const ALERT_RULES_FILE = 'deploy/prometheus/cdn-alerts.yml';
export const DASHBOARD_FILE = 'deploy/grafana/cdn-dashboard.json';

/** An alerting rule as the rules file writes it. */
export type AlertRule = { alert: string; expr: string; for?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
type RuleGroup = { name: string; rules: AlertRule[] };
type Target = { expr?: string };
type Panel = { title: string; type: string; datasource?: unknown; targets?: Target[]; panels?: Panel[] };
type Variable = { name: string; type: string; datasource?: unknown; query?: string | { query?: string } };
export type Dashboard = { panels: Panel[]; templating: { list: Variable[] } };

const read = (file: string) => readFileSync(new URL(file, ROOT), 'utf8');

export function alertRuleGroups(): RuleGroup[] {
  return (parse(read(ALERT_RULES_FILE)) as { groups: RuleGroup[] }).groups;
}

export function alertRules(): AlertRule[] {
  return alertRuleGroups().flatMap((group) => group.rules);
}

export function dashboard(): Dashboard {
  return JSON.parse(read(DASHBOARD_FILE)) as Dashboard;
}

/** Every panel, those inside collapsed rows included. */
export function dashboardPanels(board: Dashboard = dashboard()): Panel[] {
  return board.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]);
}

/** The PromQL of a Grafana query variable: `label_values(metric, label)` reads `metric`, `label_values(label)` reads none. */
function variableQuery(variable: Variable): string | undefined {
  const query = typeof variable.query === 'string' ? variable.query : variable.query?.query;
  if (variable.type !== 'query' || !query) return undefined;
  const labelValues = /^\s*label_values\(\s*(?:(.+),\s*)?\w+\s*\)\s*$/.exec(query);
  return labelValues ? labelValues[1] : query;
}

/** Every PromQL expression the alert rules and the dashboard (panels and variables) evaluate, with where it is. */
export function monitoringQueries(): { where: string; expr: string }[] {
  const board = dashboard();
  const rules = alertRules().map((rule) => ({ where: `${ALERT_RULES_FILE}: ${rule.alert}`, expr: rule.expr }));
  const panels = dashboardPanels(board).flatMap((panel) => (panel.targets ?? []).filter((target) => target.expr).map((target) => ({ where: `${DASHBOARD_FILE}: ${panel.title}`, expr: target.expr! })));
  const variables = board.templating.list.flatMap((variable) => ((expr) => (expr ? [{ where: `${DASHBOARD_FILE}: variable ${variable.name}`, expr }] : []))(variableQuery(variable)));
  return [...rules, ...panels, ...variables];
}

/** Words of PromQL that are not metric names where they stand bare (operators, modifiers, literals). */
const KEYWORDS = new Set(['and', 'or', 'unless', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'offset', 'bool', 'atan2', 'inf', 'nan']);

/**
 * The metric names a PromQL expression selects: identifiers standing as vector selectors, once
 * strings, label matchers `{…}`, ranges `[…]`, grouping label lists (`by (…)`, `on (…)`, …),
 * Grafana variables and numbers are taken out, and neither called as a function nor a keyword.
 */
export function metricNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/gi, ' ')
    .replace(/\$(?:\{[^}]*\}|\w+)/g, ' ')
    .replace(/(?<![\w:])\d[\w.]*/g, ' ');
  const names = [...bare.matchAll(/(?<![\w:])([a-zA-Z_:][\w:]*)(?![\w:])(?!\s*\()/g)].map((match) => match[1]).filter((word) => !KEYWORDS.has(word.toLowerCase()));
  return [...new Set(names)];
}

/** Every metric name the alert rules and the dashboard query, each with where it is queried. */
export function queriedMetrics(): Map<string, string[]> {
  const queried = new Map<string, string[]>();
  for (const { where, expr } of monitoringQueries()) {
    for (const name of metricNamesIn(expr)) queried.set(name, [...(queried.get(name) ?? []), where]);
  }
  return queried;
}

const HISTOGRAM_SAMPLE = /_(?:bucket|sum|count)$/;

/** Whether `name` (a metric, or a histogram's _bucket, _sum or _count) is one of the edge's documented metrics. */
export function isEdgeMetric(name: string): boolean {
  return documentedEdgeMetrics().some((metric) => metric.name === name || (metric.type === 'histogram' && name.replace(HISTOGRAM_SAMPLE, '') === metric.name));
}

/** The queried metrics (of the core, or of the edge) that no sample of `samples` carries, with where they are queried. */
export function queriedMetricsMissingFrom(samples: Sample[], ofEdge: boolean): string[] {
  const scraped = new Set(samples.map((sample) => sample.name));
  return [...queriedMetrics()].filter(([name]) => isEdgeMetric(name) === ofEdge && !scraped.has(name)).map(([name, where]) => `${name} (${[...new Set(where)].join('; ')})`);
}

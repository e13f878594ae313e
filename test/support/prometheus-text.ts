import { readFileSync } from 'node:fs';

/** One sample of a Prometheus text exposition. */
export type Sample = { name: string; labels: Record<string, string>; value: number };

const SAMPLE = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

/** The samples of a text exposition (comments and blank lines skipped). */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(LABEL)) labels[name] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** A metric as docs/metrics.md documents it. */
export type DocumentedMetric = { name: string; type: string; labels: string[] };

/** The heading of docs/metrics.md after which every table row documents an edge metric. */
const EDGE_SECTION = '\n## Edge\n';

function metricRows(text: string): DocumentedMetric[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('| `cdn_'))
    .map((line) => {
      const [name, type, labels] = line.split('|').slice(1, 4).map((cell) => cell.trim());
      return { name: name.replaceAll('`', ''), type, labels: labels ? labels.split(',').map((label) => label.trim()) : [] };
    });
}

function metricsDoc(): { core: string; edge: string } {
  const docs = readFileSync(new URL('../../docs/metrics.md', import.meta.url), 'utf8');
  const edgeStart = docs.indexOf(EDGE_SECTION);
  if (edgeStart === -1) throw new Error('docs/metrics.md has no "## Edge" section');
  return { core: docs.slice(0, edgeStart), edge: docs.slice(edgeStart) };
}

/** The core's metrics table of docs/metrics.md (the part before "## Edge"). */
export function documentedCoreMetrics(): DocumentedMetric[] {
  return metricRows(metricsDoc().core);
}

/** The edge's metrics tables of docs/metrics.md ("## Edge" to the end). */
export function documentedEdgeMetrics(): DocumentedMetric[] {
  return metricRows(metricsDoc().edge);
}

/** The samples that stand for `metric`: a histogram's by its _bucket, _sum and _count, the rest by name. */
export function samplesOf(samples: Sample[], metric: DocumentedMetric): Sample[] {
  if (metric.type !== 'histogram') return samples.filter((sample) => sample.name === metric.name);
  return samples.filter((sample) => sample.name === `${metric.name}_count`);
}

/** The value of the one sample named `name` whose labels include `labels`; undefined when there is none. */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

// Writes a desired-state repository of N domains, each with 10 records, 2 origins and
// 10 rules (the shape issue #4 benchmarks with), for the validate and reconcile benchmarks.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

function domainYaml(index: number): string {
  const apex = `bench${index}.example`;
  const records = Array.from({ length: 10 }, (_, r) => `  - { type: A, name: host${r}, content: 198.51.${index % 250}.${r + 1}, proxied: ${r % 2 === 0} }`);
  const rules = [
    ...Array.from({ length: 4 }, (_, r) => `  - { name: redirect ${r}, match: { paths: [{ kind: exact, value: /old/${r} }] }, target: /new/${r} }`),
  ];
  const limits = Array.from({ length: 3 }, (_, r) => `  - { name: limit ${r}, match: { paths: [{ kind: prefix, value: /api/v${r}/ }] }, requests: ${100 * (r + 1)}, period_seconds: 60 }`);
  const caches = Array.from({ length: 3 }, (_, r) => `  - { name: cache ${r}, match: { paths: [{ kind: wildcard, value: "*.ext${r}" }] }, edge_ttl_seconds: 3600 }`);
  return [
    '# yaml-language-server: $schema=../../schemas/gitops/domain.schema.json',
    `domain: ${apex}`,
    'records:',
    ...records,
    'origins:',
    `  - { host: origin-a.${apex}, weight: 60 }`,
    `  - { host: origin-b.${apex}, role: backup }`,
    'redirects:',
    ...rules,
    'rate_limits:',
    ...limits,
    'cache_rules:',
    ...caches,
    '',
  ].join('\n');
}

/** Writes `count` domain files under `dir/domains`. */
export async function writeBenchRepository(dir: string, count: number): Promise<void> {
  await mkdir(path.join(dir, 'domains'), { recursive: true });
  await Promise.all(Array.from({ length: count }, (_, index) => writeFile(path.join(dir, 'domains', `bench${index}.example.yaml`), domainYaml(index))));
}

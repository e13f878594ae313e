import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ApiClient } from '../gitops/api-client.js';
import { domainFileText, secretVariable, writeSchemas } from '../gitops/export.js';
import type { Exported } from '../gitops/live.js';
import { loadDesiredState } from '../gitops/load.js';
import { formatProblem, sortProblems } from '../gitops/problems.js';

export type ExportOptions = { url?: string; token?: string; domain?: string[]; force?: boolean };

function selected(all: Exported[], names: string[] | undefined): Exported[] {
  if (!names) return all;
  const wanted = new Set(names.map((name) => name.toLowerCase()));
  const found = all.filter((item) => wanted.has(String(item.domain.domain)));
  const missing = [...wanted].filter((name) => !found.some((item) => item.domain.domain === name));
  if (missing.length) throw new Error(`--domain ${missing.join(', ')}: no such domain in the live service`);
  return found;
}

/**
 * `cdn export [DIR]`: writes the live state of domains as desired-state files
 * (DIR/domains/<apex>.yaml), so existing domains can be brought under git without
 * prune deleting what a hand-written file forgot, and this version's schemas beside
 * them (DIR/schemas/), which the files' modelines name. Existing domain files are kept
 * unless --force; the written directory is validated like `cdn validate`.
 */
export async function runExport(dir: string, options: ExportOptions): Promise<void> {
  const root = path.resolve(dir);
  const client = new ApiClient(options.url ?? process.env.CDN_API_URL ?? 'http://127.0.0.1:8080', options.token ?? process.env.CDN_API_TOKEN);
  const domains = selected(await client.list<Exported>('/api/v1/export/domains'), options.domain);
  await mkdir(path.join(root, 'domains'), { recursive: true });
  const secrets: string[] = [];
  for (const exported of domains) {
    const relative = path.join('domains', `${exported.domain.domain}.yaml`);
    const file = path.join(root, relative);
    if (existsSync(file) && !options.force) throw new Error(`${relative} exists; nothing was overwritten (use --force to replace it)`);
    await writeFile(file, domainFileText(exported));
    if (exported.domain.origin_shield_secret_set) secrets.push(secretVariable(String(exported.domain.domain)));
    process.stdout.write(`wrote ${relative}\n`);
  }
  process.stdout.write(`wrote ${(await writeSchemas(root)).join(', ')} (the schemas the files' modelines name)\n`);
  if (secrets.length) process.stdout.write(`set the origin-shield secret(s) in the reconciler's environment: ${secrets.join(', ')} (the API never returns secret values)\n`);
  const state = await loadDesiredState(root);
  for (const problem of sortProblems(state.problems)) process.stderr.write(`${formatProblem(problem)}\n`);
  if (state.problems.length) process.exitCode = 1;
  else process.stdout.write(`${domains.length} domain file(s) written and valid\n`);
}

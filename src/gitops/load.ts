import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ValidateFunction } from 'ajv';
import { normalizeApex } from '../shared/hostnames.js';
import { groupProblems } from '../features/settings/store.js';
import { GROUPS } from '../features/settings/registry.js';
import { crossCheckDomain } from './cross-checks.js';
import type { Problem } from './problems.js';
import { loadGitopsValidators, messageOf, pathOf, type GitopsValidators } from './schemas.js';
import type { DomainSpec, RepositorySpec } from './spec.js';
import { YamlFile } from './yaml-file.js';

export type LoadedDomain = { file: string; spec: DomainSpec; yaml: YamlFile };
export type DesiredState = {
  repository: RepositorySpec;
  domains: LoadedDomain[];
  settings: Record<string, Record<string, unknown>>;
  problems: Problem[];
  /** sha256 over the path and text of every file read: what a saved plan was made from. */
  digest: string;
};

/** The directory holds no desired state at all (missing, or without domains/, settings/ or cdn-gitops.yaml). */
class NoDesiredStateError extends Error {}

const YAML_FILE = /\.ya?ml$/;

// A folder's YAML files; anything else in it (but dotfiles such as .gitkeep) is a problem, never silently skipped.
async function yamlFiles(dir: string, relative: string, problems: Problem[]): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const names = entries.filter((entry) => !entry.name.startsWith('.')).map((entry) => entry.name).sort();
  for (const name of names.filter((entry) => !YAML_FILE.test(entry))) problems.push({ file: path.join(relative, name), line: 1, col: 1, message: `not a YAML file: files in ${relative}/ must be named <name>.yaml (or .yml)` });
  const yaml = names.filter((name) => YAML_FILE.test(name));
  const stems = new Map<string, string>();
  for (const name of yaml) {
    const stem = name.replace(YAML_FILE, '');
    const twin = stems.get(stem);
    if (twin) problems.push({ file: path.join(relative, name), line: 1, col: 1, message: `${path.join(relative, twin)} describes ${stem} too; keep one file` });
    stems.set(stem, name);
  }
  return yaml;
}

/** The text of every file a load read, by path relative to the root: what the digest is made of. */
type FilesRead = Map<string, string>;

async function readText(root: string, relative: string, read: FilesRead): Promise<string> {
  const text = await readFile(path.join(root, relative), 'utf8');
  read.set(relative, text);
  return text;
}

async function readYaml(root: string, relative: string, read: FilesRead): Promise<YamlFile> {
  return new YamlFile(relative, await readText(root, relative, read));
}

function schemaProblems(file: YamlFile, validate: ValidateFunction): Problem[] {
  if (validate(file.data)) return [];
  return (validate.errors ?? []).map((error) => {
    const key = (error.params as { additionalProperty?: string }).additionalProperty;
    return file.problemAt(pathOf(error), messageOf(error), key);
  });
}

function fileNameProblem(file: YamlFile, spec: DomainSpec): Problem[] {
  const expected = path.basename(file.file).replace(YAML_FILE, '');
  const apex = normalizeApex(spec.domain);
  if (!apex) return [file.problemAt(['domain'], `${JSON.stringify(spec.domain)} is not a valid apex hostname`)];
  return apex === expected ? [] : [file.problemAt(['domain'], `the file of ${apex} must be named domains/${apex}.yaml`)];
}

type DomainFileResult = { problems: Problem[]; domain?: LoadedDomain };

function checkDomainFile(yaml: YamlFile, validators: GitopsValidators): DomainFileResult {
  if (yaml.data === undefined) return { problems: yaml.problems };
  const found = schemaProblems(yaml, validators.domain);
  if (found.length) return { problems: [...yaml.problems, ...found] };
  const spec = yaml.data as DomainSpec;
  const checks = [...fileNameProblem(yaml, spec), ...crossCheckDomain(spec, yaml)];
  return { problems: [...yaml.problems, ...checks], domain: checks.length ? undefined : { file: yaml.file, spec, yaml } };
}

// Results of unchanged files (same path, same bytes) are reused: a long-running
// controller re-parses only what a commit touched. Results are never mutated.
const domainCache = new Map<string, { hash: string; result: DomainFileResult }>();

async function loadDomainFile(root: string, relative: string, validators: GitopsValidators, read: FilesRead): Promise<DomainFileResult> {
  const full = path.join(root, relative);
  const text = await readText(root, relative, read);
  const hash = createHash('sha1').update(text).digest('hex');
  const cached = domainCache.get(full);
  if (cached?.hash === hash) return cached.result;
  const result = checkDomainFile(new YamlFile(relative, text), validators);
  domainCache.set(full, { hash, result });
  return result;
}

async function loadDomains(root: string, validators: GitopsValidators, problems: Problem[], read: FilesRead): Promise<LoadedDomain[]> {
  const names = await yamlFiles(path.join(root, 'domains'), 'domains', problems);
  const results = await Promise.all(names.map((name) => loadDomainFile(root, path.join('domains', name), validators, read)));
  for (const result of results) problems.push(...result.problems);
  return results.flatMap((result) => (result.domain ? [result.domain] : []));
}

// The same checks as PATCH /settings/{group}: known group, known keys, valid values.
function settingsProblems(file: YamlFile, group: string): Problem[] {
  if (!(GROUPS as string[]).includes(group)) return [file.problemAt([], `unknown settings group ${JSON.stringify(group)}; the file name must be one of ${GROUPS.join(', ')}`)];
  const values = (file.data ?? {}) as Record<string, unknown>;
  if (typeof values !== 'object' || Array.isArray(values)) return [];
  return groupProblems(group, values).map((problem) => {
    const key = problem.field.split('.')[1];
    return file.problemAt([], problem.detail, key);
  });
}

async function loadSettings(root: string, validators: GitopsValidators, problems: Problem[], read: FilesRead): Promise<Record<string, Record<string, unknown>>> {
  const settings: Record<string, Record<string, unknown>> = {};
  for (const name of await yamlFiles(path.join(root, 'settings'), 'settings', problems)) {
    const yaml = await readYaml(root, path.join('settings', name), read);
    problems.push(...yaml.problems);
    if (yaml.data === undefined) continue;
    const group = name.replace(YAML_FILE, '');
    const found = [...schemaProblems(yaml, validators.settings), ...settingsProblems(yaml, group)];
    problems.push(...found);
    if (!found.length) settings[group] = (yaml.data ?? {}) as Record<string, unknown>;
  }
  return settings;
}

async function loadRepository(root: string, validators: GitopsValidators, problems: Problem[], read: FilesRead): Promise<RepositorySpec> {
  const entries = await readdir(root);
  const name = entries.find((file) => file === 'cdn-gitops.yaml') ?? entries.find((file) => file === 'cdn-gitops.yml');
  const data: Record<string, unknown> = {};
  if (!name) {
    validators.repository(data);
    return data as RepositorySpec;
  }
  const yaml = await readYaml(root, name, read);
  problems.push(...yaml.problems, ...(yaml.data === undefined ? [] : schemaProblems(yaml, validators.repository)));
  return (yaml.data ?? data) as RepositorySpec;
}

let validators: GitopsValidators | undefined;

/**
 * Reads a desired-state directory: `domains/<apex>.yaml`, `settings/<group>.yaml`
 * and `cdn-gitops.yaml`. Every YAML, schema and cross-reference problem is
 * collected with its file position; loaded specs have their defaults filled in.
 */
export async function loadDesiredState(root: string): Promise<DesiredState> {
  validators ??= loadGitopsValidators();
  await assertDesiredStateDir(root);
  const problems: Problem[] = [];
  const read: FilesRead = new Map();
  const repository = await loadRepository(root, validators, problems, read);
  const domains = await loadDomains(root, validators, problems, read);
  const settings = await loadSettings(root, validators, problems, read);
  return { repository, domains, settings, problems, digest: digestOf(read) };
}

async function assertDesiredStateDir(root: string): Promise<void> {
  const entries = await readdir(root).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') throw new NoDesiredStateError(`${root} does not exist`);
    if (error.code === 'ENOTDIR') throw new NoDesiredStateError(`${root} is not a directory`);
    throw error;
  });
  if (!entries.some((entry) => ['domains', 'settings', 'cdn-gitops.yaml', 'cdn-gitops.yml'].includes(entry))) {
    throw new NoDesiredStateError(`${root} holds no desired state: expected domains/<apex>.yaml, settings/<group>.yaml or cdn-gitops.yaml`);
  }
}

/** The files of a desired state, relative to its root, in path order. */
export async function desiredFiles(root: string): Promise<string[]> {
  const files = [...(await readdir(root)).filter((name) => /^cdn-gitops\.ya?ml$/.test(name))];
  for (const folder of ['domains', 'settings']) {
    const names = await readdir(path.join(root, folder)).catch(() => [] as string[]);
    files.push(...names.filter((name) => YAML_FILE.test(name) && !name.startsWith('.')).map((name) => path.join(folder, name)));
  }
  return files.sort();
}

// Over every file the load read, in path order.
function digestOf(read: FilesRead): string {
  const hash = createHash('sha256');
  for (const file of [...read.keys()].sort()) hash.update(`${file}\0`).update(read.get(file)!).update('\0');
  return hash.digest('hex');
}

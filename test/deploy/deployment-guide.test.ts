import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Command } from 'commander';
import { buildCli } from '../../src/cli.js';
import { configProblems } from '../../src/config/load.js';
import { VARIABLES } from '../../src/config/variables.js';

// docs/deployment.md and deploy/systemd/ name variables, commands and paths of this codebase;
// these tests keep them from drifting away from it.

const ROOT = new URL('../../', import.meta.url).pathname;
const GUIDE = 'docs/deployment.md';
const UNITS = ['deploy/systemd/cdn-core.service', 'deploy/systemd/cdn-edge.service'];
const ENV_FILES = ['deploy/systemd/core.env.example', 'deploy/systemd/edge.env.example'];
// The units run the release installed here; the verify step points them at this checkout instead.
const INSTALL_DIR = '/opt/cdn';
// Node's own variables, which the guide may name beside the service's.
const NODE_VARIABLES = new Set(['NODE_EXTRA_CA_CERTS']);
const KNOWN_VARIABLES = new Set<string>(Object.values(VARIABLES).map((variable) => variable.env));

const SECRETS = new Set<string>(Object.values(VARIABLES).filter((variable) => 'secret' in variable && variable.secret).map((variable) => variable.env));

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** A value of the form an operator fills in for secret `name` (CDN_SSL_SECRET_KEY is the base64 of 32 bytes). */
function secretStandIn(name: string): string {
  return name === 'CDN_SSL_SECRET_KEY' ? randomBytes(32).toString('base64') : randomBytes(24).toString('hex');
}

/** The service's variables a text names: CDN_* and DATABASE_URL, patterns such as `CDN_GITOPS_*` left out. */
function serviceVariablesIn(text: string): string[] {
  return [...new Set(text.match(/\b(?:CDN_[A-Z0-9_]*[A-Z0-9]|DATABASE_URL)\b(?![*_])/g) ?? [])].sort();
}

/** KEY=value lines of a systemd environment file, commented-out ones included (`#KEY=`). */
function environmentFileEntries(text: string): { name: string; value: string; commented: boolean }[] {
  return text
    .split('\n')
    .map((line) => /^(#?)([A-Z][A-Z0-9_]*)=(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ commented: match[1] === '#', name: match[2], value: match[3].replace(/^"(.*)"$/, '$1') }));
}

/** What Markdown shows as code: fenced blocks and inline spans, where commands are written. */
function markdownCode(markdown: string): string {
  const fence = /^[ \t]*```[^\n]*\n([\s\S]*?)^[ \t]*```/gm;
  const fenced = [...markdown.matchAll(fence)].map((match) => match[1]);
  const prose = markdown.replace(fence, '');
  const spans = [...prose.matchAll(/`([^`]+)`/g)].map((match) => match[1]);
  return [...fenced, ...spans].join('\n');
}

type Invocation = { words: string[]; text: string };

/** Each `cdn <command> …` (or `…/cdn.js <command> …`) in `text`, with the words that follow it on its line. */
function cdnInvocations(text: string): Invocation[] {
  return [...text.matchAll(/(?:^|[^\w./-])(?:\/opt\/cdn\/bin\/)?cdn(?:\.js)?\s+([a-z][^\n`|;&)]*)/g)].map((match) => ({
    words: match[1].trim().split(/\s+/),
    text: `cdn ${match[1].trim()}`,
  }));
}

function subcommand(command: Command, name: string): Command | undefined {
  return command.commands.find((candidate) => candidate.name() === name);
}

/** Why `invocation` is not a command line `cdn` takes (an unknown command, subcommand or option), or undefined. */
function cliProblem(program: Command, invocation: Invocation): string | undefined {
  const [name, ...rest] = invocation.words;
  let command = subcommand(program, name);
  if (!command) return `${invocation.text}: cdn has no command ${name}`;
  if (command.commands.length && rest[0] && /^[a-z][a-z-]*$/.test(rest[0])) {
    command = subcommand(command, rest[0]);
    if (!command) return `${invocation.text}: cdn ${name} has no subcommand ${rest[0]}`;
  }
  const options = new Set(command.options.map((option) => option.long));
  const unknown = rest.filter((word) => word.startsWith('--')).map((word) => word.replace(/=.*$/, '')).filter((option) => !options.has(option));
  return unknown.length ? `${invocation.text}: no option ${unknown.join(', ')}` : undefined;
}

function commandLinesOf(): { file: string; invocations: Invocation[] }[] {
  return [
    { file: GUIDE, invocations: cdnInvocations(markdownCode(read(GUIDE))) },
    ...[...UNITS, ...ENV_FILES].map((file) => ({ file, invocations: cdnInvocations(read(file)) })),
  ];
}

function systemdAnalyzeAvailable(): boolean {
  return spawnSync('systemd-analyze', ['--version'], { stdio: 'ignore' }).status === 0;
}

describe('the production deployment guide and its systemd units', () => {
  it('names only variables the service reads (src/config/variables.ts)', () => {
    const named = serviceVariablesIn(read(GUIDE));
    expect(named).to.include.members(['DATABASE_URL', 'CDN_EDGE_CORE_URL', 'CDN_EDGE_TOKEN', 'CDN_EDGE_CLEARANCE_SECRET', 'CDN_AUTO_MIGRATE']);
    expect(named.filter((name) => !KNOWN_VARIABLES.has(name))).to.deep.equal([]);
  });

  it('sets only known variables in the example environment files and the units', () => {
    for (const file of ENV_FILES) {
      const names = environmentFileEntries(read(file)).map((entry) => entry.name);
      expect(names, file).to.not.be.empty;
      expect(names.filter((name) => !KNOWN_VARIABLES.has(name) && !NODE_VARIABLES.has(name)), file).to.deep.equal([]);
    }
    for (const unit of UNITS) {
      const names = [...read(unit).matchAll(/^Environment=([A-Z0-9_]+)=/gm)].map((match) => match[1]);
      expect(names, unit).to.not.be.empty;
      expect(names.filter((name) => !KNOWN_VARIABLES.has(name)), unit).to.deep.equal([]);
    }
  });

  it('leaves the secrets empty in the example environment files', () => {
    for (const file of ENV_FILES) {
      // `0` is how CDN_BOOTSTRAP_EDGE_TOKEN says "none".
      const filled = environmentFileEntries(read(file)).filter((entry) => SECRETS.has(entry.name) && entry.value !== '' && entry.value !== '0');
      expect(filled.map((entry) => entry.name), file).to.deep.equal([]);
    }
  });

  it('loads the example environment files in production once their secrets are filled in', () => {
    for (const file of ENV_FILES) {
      const entries = environmentFileEntries(read(file)).filter((entry) => !entry.commented);
      const env = Object.fromEntries(entries.map((entry) => [entry.name, entry.value === '' && SECRETS.has(entry.name) ? secretStandIn(entry.name) : entry.value]));
      expect(env.CDN_ENV, file).to.equal('production');
      expect(configProblems(env), file).to.deep.equal([]);
    }
  });

  it('names only commands and options that cdn has', () => {
    const program = buildCli();
    const found = commandLinesOf();
    const inGuide = found.find(({ file }) => file === GUIDE)!.invocations.map((invocation) => invocation.words.slice(0, 2).join(' '));
    expect(inGuide).to.include.members(['migrate --status', 'edge-token create', 'admin create', 'edge-token revoke', 'doctor']);
    const problems = found.flatMap(({ file, invocations }) => invocations.map((invocation) => cliProblem(program, invocation)).filter(Boolean).map((problem) => `${file}: ${problem}`));
    expect(problems).to.deep.equal([]);
  });

  it('passes systemd-analyze verify', function () {
    if (!systemdAnalyzeAvailable()) {
      console.log('    skipped: systemd-analyze is not installed (Debian package systemd; .ci/run installs it)');
      this.skip();
    }
    const dir = mkdtempSync(path.join(tmpdir(), 'cdn-units-'));
    try {
      const units = UNITS.map((unit) => {
        const copy = path.join(dir, path.basename(unit));
        writeFileSync(copy, read(unit).replaceAll(INSTALL_DIR, ROOT.replace(/\/$/, '')));
        return copy;
      });
      const verify = spawnSync('systemd-analyze', ['verify', ...units], { encoding: 'utf8' });
      expect({ status: verify.status, output: `${verify.stdout}${verify.stderr}`.trim() }).to.deep.equal({ status: 0, output: '' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

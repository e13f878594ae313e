import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { loadDesiredState } from '../../src/gitops/load.js';
import { formatProblem } from '../../src/gitops/problems.js';

const exec = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
const EXAMPLE = path.join(ROOT, 'config-repo-example');

async function repoWith(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'cdn-gitops-'));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
  return dir;
}

async function problemsOf(files: Record<string, string>): Promise<string[]> {
  const dir = await repoWith(files);
  try {
    return (await loadDesiredState(dir)).problems.map(formatProblem);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const domainFile = (apex: string, body: string) => ({ [`domains/${apex}.yaml`]: `domain: ${apex}\n${body}` });

describe('desired-state validation', () => {
  it('accepts the example repository, fills in defaults and reads settings and repository options', async () => {
    const state = await loadDesiredState(EXAMPLE);
    expect(state.problems).to.deep.equal([]);
    expect(state.domains.map((domain) => domain.spec.domain)).to.deep.equal(['api.example', 'blog.example', 'docs.example', 'shop.example', 'status.example']);
    const blog = state.domains.find((domain) => domain.spec.domain === 'blog.example')!.spec;
    expect(blog.policy).to.deep.equal({ prune: true, self_heal: false });
    expect(blog.records![0]).to.include({ ttl: 300, proxied: true, routing_policy: 'simple' });
    expect(state.settings.nameservers).to.deep.equal({ hostnames: ['ns1.cdn.example.net', 'ns2.cdn.example.net'] });
    expect(state.repository).to.include({ delete_removed_domains: false, max_delete_percent: 25 });
  });

  it('reports YAML syntax errors at their position', async () => {
    expect(await problemsOf({ 'domains/a.example.yaml': 'domain: a.example\nrecords:\n  - {type: A, name: www\n' })).to.have.length.greaterThan(0);
    const [problem] = await problemsOf({ 'domains/a.example.yaml': 'domain: a.example\ndomain: again.example\n' });
    expect(problem).to.match(/^domains\/a\.example\.yaml:2:1: Map keys must be unique/);
  });

  it('reports an unknown field at its key', async () => {
    expect(await problemsOf(domainFile('a.example', 'origins:\n  - host: o.example.net\n    colour: red\n'))).to.deep.equal([
      'domains/a.example.yaml:4:5: unknown field "colour" in origins.0',
    ]);
  });

  it('reports a wrong type and an out-of-range value at the value', async () => {
    expect(await problemsOf(domainFile('a.example', 'records:\n  - {type: A, name: www, content: 192.0.2.1, ttl: 30}\n'))).to.deep.equal([
      'domains/a.example.yaml:3:51: records.0.ttl must be >= 60',
    ]);
    expect(await problemsOf(domainFile('a.example', 'origins:\n  - {host: o.example.net, port: "443"}\n'))).to.deep.equal([
      'domains/a.example.yaml:3:33: origins.0.port must be integer',
    ]);
  });

  it('reports invalid record content with the type-specific reason', async () => {
    expect(await problemsOf(domainFile('a.example', 'records:\n  - {type: A, name: www, content: 999.1.1.1}\n'))).to.deep.equal([
      'domains/a.example.yaml:3:35: an A record needs an IPv4 address, got "999.1.1.1"',
    ]);
  });

  it('reports a geo route naming a record that does not exist', async () => {
    const problems = await problemsOf(domainFile('a.example', 'records:\n  - {type: A, name: www, content: 192.0.2.1}\ngeo_routes:\n  - record: api\n    routes: [{scope: default, target: 192.0.2.9}]\n'));
    expect(problems).to.deep.equal(['domains/a.example.yaml:5:13: geo routes name the record "api", which is not an A, AAAA or CNAME record of this file']);
  });

  it('reports two origins with the same identity, a duplicate record and a CNAME beside other records', async () => {
    const problems = await problemsOf(
      domainFile(
        'a.example',
        [
          'records:',
          '  - {type: A, name: www, content: 192.0.2.1}',
          '  - {type: A, name: WWW, content: 192.0.2.1}',
          '  - {type: CNAME, name: app, content: x.example.net}',
          '  - {type: TXT, name: app, content: hello}',
          'origins:',
          '  - {host: o.example.net}',
          '  - {host: O.example.net, port: 443}',
          '',
        ].join('\n'),
      ),
    );
    expect(problems).to.deep.equal([
      'domains/a.example.yaml:4:5: duplicate record: A www 192.0.2.1 is also records[0]',
      'domains/a.example.yaml:5:5: a CNAME cannot share the name app with other records (TXT)',
      'domains/a.example.yaml:9:5: two origins with the same identity https://o.example.net:443 (origins[0] and origins[1])',
    ]);
  });

  it('reports a regex RE2 cannot run and a duplicate rule name inside the rule', async () => {
    const problems = await problemsOf(
      domainFile('a.example', 'redirects:\n  - name: r\n    target: /x\n    match: {paths: [{kind: regex, value: "(a+)\\\\1$"}]}\n  - {name: r, target: /y}\n'),
    );
    expect(problems).to.have.length(2);
    expect(problems[0]).to.match(/^domains\/a\.example\.yaml:5:42: regular expression not supported: backreferences/);
    expect(problems[1]).to.equal('domains/a.example.yaml:6:12: redirects[0] already has the name "r"');
  });

  it('refuses control characters in values that become headers, URLs or hostnames', async () => {
    const problems = await problemsOf(
      domainFile('a.example', 'headers:\n  - {name: h, header_name: X-A, value: "a\\r\\nSet-Cookie: x=1"}\norigins:\n  - {host: "o.example.net\\n"}\n'),
    );
    expect(problems).to.have.length(2);
    const [header, origin] = [...problems].sort();
    expect(header).to.match(/^domains\/a\.example\.yaml:3:\d+: headers\.0\.value must not contain control characters \(CR, LF, NUL/);
    expect(origin).to.match(/^domains\/a\.example\.yaml:5:\d+: origins\.0\.host must not contain control characters/);
  });

  it('refuses a header value that is not ASCII', async () => {
    const problems = await problemsOf(domainFile('a.example', 'headers:\n  - {name: h, header_name: X-A, value: "ok \u2713"}\n'));
    expect(problems).to.have.length(1);
    expect(problems[0]).to.match(/^domains\/a\.example\.yaml:3:\d+: headers\.0\.value must be ASCII text/);
  });

  it('requires the file name to match the apex', async () => {
    expect(await problemsOf({ 'domains/b.example.yaml': 'domain: a.example\n' })).to.deep.equal(['domains/b.example.yaml:1:9: the file of a.example must be named domains/a.example.yaml']);
  });

  it('reads *.yml files, and names every other file in domains/ or settings/ instead of skipping it', async () => {
    const dir = await repoWith({ 'domains/a.example.yml': 'domain: a.example\n', 'domains/.gitkeep': '', 'cdn-gitops.yml': 'max_delete_percent: 10\n' });
    try {
      const state = await loadDesiredState(dir);
      expect(state.problems).to.deep.equal([]);
      expect(state.domains.map((domain) => domain.spec.domain)).to.deep.equal(['a.example']);
      expect(state.repository.max_delete_percent).to.equal(10);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(await problemsOf({ 'domains/a.example.json': '{}', 'settings/dns.txt': '' })).to.deep.equal([
      'domains/a.example.json:1:1: not a YAML file: files in domains/ must be named <name>.yaml (or .yml)',
      'settings/dns.txt:1:1: not a YAML file: files in settings/ must be named <name>.yaml (or .yml)',
    ]);
    expect(await problemsOf({ 'domains/a.example.yaml': 'domain: a.example\n', 'domains/a.example.yml': 'domain: a.example\n' })).to.deep.equal(['domains/a.example.yml:1:1: domains/a.example.yaml describes a.example too; keep one file']);
  });

  it('runs the checks the API runs when each item is written', async () => {
    const problems = await problemsOf(
      domainFile(
        'a.example',
        [
          'routing: { routing_mode: anycast, anycast_ipv4: [not-an-ip] }',
          'records:',
          '  - { type: MX, name: "@", content: 10 mx.example.net, proxied: true }',
          '  - { type: A, name: api, content: 192.0.2.1 }',
          'geo_routes:',
          '  - { record: api, routes: [{ scope: country, code: DE, target: 192.0.2.2 }] }',
          'origins:',
          '  - { host: "bad host!" }',
          'headers:',
          '  - { name: h, header_name: Connection, value: x }',
          'rate_limits:',
          '  - { name: r, requests: 10, period_seconds: 60, key: header }',
          '',
        ].join('\n'),
      ),
    );
    expect(problems).to.have.members([
      'domains/a.example.yaml:2:49: "not-an-ip" is not an IPv4 address',
      'domains/a.example.yaml:4:65: only A, AAAA and CNAME records can be proxied, not MX',
      'domains/a.example.yaml:7:28: a geo route set needs exactly one default route (found 0)',
      'domains/a.example.yaml:9:13: "bad host!" is not a hostname or IP address',
      'domains/a.example.yaml:11:29: connection is managed by the proxy and cannot be changed by a header rule',
      'domains/a.example.yaml:13:5: key_header is required when key is header',
    ]);
  });

  it('checks the repository options file', async () => {
    expect(await problemsOf({ 'cdn-gitops.yaml': 'max_delete_percent: 150\n' })).to.deep.equal(['cdn-gitops.yaml:1:21: max_delete_percent must be <= 100']);
  });

  it('exits 1 from cdn validate and prints file:line:col lines, exits 0 on a valid repository', async () => {
    const dir = await repoWith(domainFile('a.example', 'records:\n  - {type: AAAA, name: www, content: 192.0.2.1}\n'));
    try {
      const failure = await exec(process.execPath, [path.join(ROOT, 'bin/cdn.js'), 'validate', dir]).then(
        () => undefined,
        (error: { code: number; stdout: string }) => error,
      );
      expect(failure?.code).to.equal(1);
      expect(failure?.stdout.split('\n')[0]).to.equal('domains/a.example.yaml:3:38: an AAAA record needs an IPv6 address, got "192.0.2.1"');
      const { stdout } = await exec(process.execPath, [path.join(ROOT, 'bin/cdn.js'), 'validate', EXAMPLE]);
      expect(stdout).to.match(/^5 domain file\(s\) valid/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps the committed schemas/gitops files in step with the API schemas', async () => {
    await exec(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/gitops-schemas.ts'), '--check'], { cwd: ROOT });
  });
});

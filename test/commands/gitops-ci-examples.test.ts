import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { simpleGit, type SimpleGit } from 'simple-git';
import { parse } from 'yaml';
import { cdnOnPath, repositoryWithRemote, runCdn, runProcess, type CliResult } from '../support/cdn-cli.js';
import { TestCore, type Json } from '../support/core.js';

const GITHUB_WORKFLOW = new URL('../../docs/ci/github-actions.yml', import.meta.url).pathname;
const GITLAB_PIPELINE = new URL('../../docs/ci/gitlab-ci.yml', import.meta.url).pathname;
const EXAMPLE = new URL('../../config-repo-example', import.meta.url).pathname;
const TOKEN = 'ci-examples-token';
const SHOP_SHIELD_SECRET = 'shop-shield-secret';

type GithubStep = { id?: string; name?: string; run?: string; uses?: string; env?: Record<string, string>; with?: Record<string, string> };
type GithubJob = { env?: Record<string, string>; steps: GithubStep[] };
type GitlabJob = { script: string[]; artifacts?: { paths: string[] } };

// Stand-ins for the hosting services' clients, which the runner has and a test cannot reach:
// each records its arguments and the comment body it would post.
const SHIMS = {
  gh: '#!/usr/bin/env bash\necho "$*" > "$CI_SHIM_LOG/gh.args"\nwhile [ $# -gt 0 ]; do if [ "$1" = --body-file ]; then cp "$2" "$CI_SHIM_LOG/gh.body"; fi; shift; done\n',
  curl: '#!/usr/bin/env bash\necho "$*" > "$CI_SHIM_LOG/curl.args"\nfor arg in "$@"; do case "$arg" in body@*) cp "${arg#body@}" "$CI_SHIM_LOG/curl.body" ;; esac; done\n',
};

// GitHub evaluates `${{ … }}` in env values before a step runs; the example uses only context lookups there.
function githubEnv(env: Record<string, string> | undefined, context: Json): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env ?? {}).map(([name, value]) => {
      const resolved = String(value).replace(/\$\{\{\s*([\w.-]+)\s*\}\}/g, (_, lookup: string) => {
        const found = lookup.split('.').reduce((at: Json, key) => at?.[key], context);
        if (found === undefined) throw new Error(`${name}: ${lookup} is not in the test's context`);
        return String(found);
      });
      expect(resolved, `${name} holds an expression the test cannot evaluate`).to.not.include('${{');
      return [name, resolved];
    }),
  );
}

function stepOf(job: GithubJob, match: (step: GithubStep) => boolean): GithubStep {
  const step = job.steps.find(match);
  expect(step, 'the step the test runs').to.not.equal(undefined);
  return step!;
}

// The plan and apply commands of docs/ci/*.yml, run with bash as the runners do, in a fresh clone of the
// repository, with `cdn` installed as the examples install it, against a local core.
describe('the CI examples in docs/ci plan and apply against a local core', function () {
  this.timeout(180000);
  let core: TestCore;
  let dir: string;
  let work: SimpleGit;
  let workDir: string;
  let remote: string;
  let bin: string;
  let shimLog: string;
  let steps = 0;

  const editFile = async (file: string, change: (text: string) => string) => writeFile(path.join(workDir, file), change(await readFile(path.join(workDir, file), 'utf8')));
  const pullRequest = async (branch: string, file: string, change: (text: string) => string) => {
    await work.checkoutBranch(branch, 'main');
    await editFile(file, change);
    await work.add('.').commit(branch).push('origin', branch);
    const sha = (await work.revparse(['HEAD'])).trim();
    await work.checkout('main');
    return sha;
  };
  const merge = async (branch: string) => {
    await work.merge(['--ff-only', branch]);
    await work.push('origin', 'main');
  };
  // What actions/checkout and the GitLab runner leave in the workspace: a clone at the pipeline's ref.
  const checkout = async (ref: string, name: string) => {
    const target = path.join(dir, 'ci', name);
    await simpleGit().clone(remote, target, ['--branch', ref]);
    return target;
  };
  const runnerEnv = (extra: Record<string, string>) => ({ PATH: `${bin}:${process.env.PATH}`, HOME: process.env.HOME ?? dir, CI: 'true', CI_SHIM_LOG: shimLog, ...extra });
  const runBash = async (flags: string[], script: string, cwd: string, env: Record<string, string>): Promise<CliResult> => {
    const file = path.join(dir, `step-${++steps}.sh`);
    await writeFile(file, script);
    return runProcess('bash', [...flags, file], { cwd, env });
  };
  const records = async (apex: string) => {
    const domain = (await core.get('/api/v1/domains?limit=500')).data.find((item: Json) => item.domain === apex);
    return (await core.get(`/api/v1/domains/${domain.id}/dns/records`)).data as Json[];
  };

  before(async () => {
    core = await TestCore.start({ CDN_API_TOKEN: TOKEN });
    core.token = TOKEN;
    dir = await mkdtemp(path.join(tmpdir(), 'cdn-ci-examples-'));
    ({ work, workDir, remote } = await repositoryWithRemote(dir));
    await cp(EXAMPLE, workDir, { recursive: true });
    await work.add('.').commit('the desired state').push('origin', 'main');
    bin = await cdnOnPath(path.join(dir, 'bin'));
    for (const [name, text] of Object.entries(SHIMS)) {
      await writeFile(path.join(bin, name), text);
      await chmod(path.join(bin, name), 0o755);
    }
    shimLog = path.join(dir, 'shim-log');
    await mkdir(shimLog);
    // The service already runs this repository's state when CI is set up.
    const applied = await runCdn(['apply', workDir, '--url', core.url], { CDN_API_TOKEN: TOKEN, SHOP_SHIELD_SECRET });
    expect(applied.code, applied.stderr).to.equal(0);
  });
  after(async () => {
    await core?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  describe('GitHub Actions (docs/ci/github-actions.yml)', () => {
    let workflow: { env?: Record<string, string>; jobs: { plan: GithubJob; apply: GithubJob } };
    const context = { secrets: { CDN_API_TOKEN: TOKEN, SHOP_SHIELD_SECRET }, github: { token: 'github-token', repository: 'ops/cdn-config', event: { pull_request: { number: 7 } } } };
    const files = (name: string) => ({ GITHUB_OUTPUT: path.join(dir, `${name}.output`), GITHUB_STEP_SUMMARY: path.join(dir, `${name}.summary`) });
    // A `run:` step as the runner runs it (`bash -e`), with the workflow's, job's and step's env evaluated.
    const runStep = async (job: GithubJob, step: GithubStep, workspace: string, extra: Record<string, string> = {}) => {
      const github = { ...context, vars: { CDN_API_URL: core.url } };
      const env = runnerEnv({ GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: workspace, ...extra, ...githubEnv(workflow.env, github), ...githubEnv(job.env, github), ...githubEnv(step.env, github) });
      return runBash(['-e'], step.run!, workspace, env);
    };
    const planStep = () => stepOf(workflow.jobs.plan, (step) => step.id === 'plan');
    const commentStep = () => stepOf(workflow.jobs.plan, (step) => step.run?.startsWith('gh pr comment') === true);

    before(async () => {
      workflow = parse(await readFile(GITHUB_WORKFLOW, 'utf8'));
      for (const job of Object.values(workflow.jobs)) for (const step of job.steps) expect(step.run ?? '', `${step.name}: expressions go through env, never into a script`).to.not.include('${{');
    });

    it('plans a pull request into the comment and the JSON artifact, and applies it on merge', async () => {
      const sha = await pullRequest('pr-pipe', 'domains/blog.example.yaml', (text) => text.replace('records:\n', 'records:\n  - { type: TXT, name: ci, content: "k=v1|v2" }\n'));
      const workspace = await checkout('pr-pipe', 'github-pr');
      const outputs = files('github-pr');
      const planned = await runStep(workflow.jobs.plan, planStep(), workspace, outputs);
      expect(planned.code, planned.stderr).to.equal(0);
      const markdown = await readFile(path.join(workspace, 'cdn-plan.md'), 'utf8');
      expect(markdown).to.match(/^### CDN plan\n/);
      expect(markdown).to.include('k=v1\\|v2');
      expect(await readFile(outputs.GITHUB_OUTPUT, 'utf8')).to.equal('exitcode=2\n');
      expect(await readFile(outputs.GITHUB_STEP_SUMMARY, 'utf8')).to.equal(markdown);

      const artifact = stepOf(workflow.jobs.plan, (step) => step.uses?.startsWith('actions/upload-artifact@') === true);
      const saved = JSON.parse(await readFile(path.join(workspace, artifact.with!.path), 'utf8'));
      expect(saved).to.deep.include({ format: 'cdn-plan/1' });
      expect(saved.desired.commit).to.equal(sha);

      const commented = await runStep(workflow.jobs.plan, commentStep(), workspace);
      expect(commented.code, commented.stderr).to.equal(0);
      expect(await readFile(path.join(shimLog, 'gh.args'), 'utf8')).to.equal('pr comment 7 --edit-last --create-if-none --body-file cdn-plan.md\n');
      expect(await readFile(path.join(shimLog, 'gh.body'), 'utf8')).to.equal(markdown);

      await merge('pr-pipe');
      const main = await checkout('main', 'github-main');
      const apply = stepOf(workflow.jobs.apply, (step) => step.id === 'apply');
      const applied = await runStep(workflow.jobs.apply, apply, main);
      expect(applied.code, applied.stdout + applied.stderr).to.equal(0);
      expect(applied.stdout).to.include('applied blog.example (1 write(s))');
      expect((await records('blog.example')).map((record) => record.content)).to.include('k=v1|v2');
      const again = await runStep(workflow.jobs.apply, apply, main);
      expect(again.code).to.equal(0);
      expect(again.stdout).to.match(/^no changes/);
    });

    it('comments why a pull request cannot be planned, and fails its check', async () => {
      await pullRequest('pr-broken', 'domains/blog.example.yaml', (text) => text.replace('records:\n', 'records:\n  - { type: A, name: broken, content: 999.1.1.1 }\n'));
      const workspace = await checkout('pr-broken', 'github-broken');
      const outputs = files('github-broken');
      const planned = await runStep(workflow.jobs.plan, planStep(), workspace, outputs);
      expect(planned.code).to.equal(1);
      const markdown = await readFile(path.join(workspace, 'cdn-plan.md'), 'utf8');
      expect(markdown).to.match(/^### CDN plan failed\n\n1 problem\(s\); nothing was planned\.\n\n- <code>domains\/blog\.example\.yaml:\d+:\d+<\/code> an A record needs an IPv4 address/);
      expect(await readFile(outputs.GITHUB_OUTPUT, 'utf8')).to.equal('exitcode=1\n');
      expect(existsSync(path.join(workspace, 'cdn-plan.json'))).to.equal(false);
      expect((await runStep(workflow.jobs.plan, commentStep(), workspace)).code).to.equal(0);
      expect(await readFile(path.join(shimLog, 'gh.body'), 'utf8')).to.equal(markdown);
    });
  });

  describe('GitLab CI (docs/ci/gitlab-ci.yml)', () => {
    let pipeline: Record<string, GitlabJob>;
    // CI/CD variables of the project and the ones GitLab sets; protected ones (the ${VAR} secrets) only on the default branch.
    const variables = (workspace: string, extra: Record<string, string>) =>
      runnerEnv({ GITLAB_CI: 'true', CI_PROJECT_DIR: workspace, CI_DEFAULT_BRANCH: 'main', CI_API_V4_URL: 'https://gitlab.example/api/v4', CI_PROJECT_ID: '42', CDN_API_URL: core.url, CDN_API_TOKEN: TOKEN, CDN_PLAN_NOTE_TOKEN: 'note-token', ...extra });
    // A job's script as the runner runs it: its lines in one bash session that stops at the first failure.
    const runJob = (job: GitlabJob, workspace: string, env: Record<string, string>) => runBash(['-eo', 'pipefail'], job.script.join('\n'), workspace, env);

    before(async () => {
      pipeline = parse(await readFile(GITLAB_PIPELINE, 'utf8'));
    });

    it('plans a merge request into the note and the artifacts, and applies it on the default branch', async () => {
      await pullRequest('mr-txt', 'domains/docs.example.yaml', (text) => text.replace('records:\n', 'records:\n  - { type: TXT, name: gitlab, content: "from a merge request" }\n'));
      const workspace = await checkout('mr-txt', 'gitlab-mr');
      const mergeRequest = variables(workspace, { CI_PIPELINE_SOURCE: 'merge_request_event', CI_MERGE_REQUEST_IID: '3' });
      const planned = await runJob(pipeline['cdn-plan'], workspace, mergeRequest);
      expect(planned.code, planned.stderr).to.equal(0);
      expect(planned.stdout).to.include('cdn plan exited 2');
      for (const file of pipeline['cdn-plan'].artifacts!.paths) expect(existsSync(path.join(workspace, file)), file).to.equal(true);
      const markdown = await readFile(path.join(workspace, 'cdn-plan.md'), 'utf8');
      expect(markdown).to.match(/^### CDN plan\n/);
      expect(markdown).to.include('from a merge request');

      const noted = await runJob(pipeline['cdn-plan-note'], workspace, mergeRequest);
      expect(noted.code, noted.stderr).to.equal(0);
      const curl = await readFile(path.join(shimLog, 'curl.args'), 'utf8');
      expect(curl).to.include('--header PRIVATE-TOKEN: note-token').and.include('https://gitlab.example/api/v4/projects/42/merge_requests/3/notes');
      expect(await readFile(path.join(shimLog, 'curl.body'), 'utf8')).to.equal(markdown);

      await merge('mr-txt');
      const main = await checkout('main', 'gitlab-main');
      const applied = await runJob(pipeline['cdn-apply'], main, variables(main, { CI_PIPELINE_SOURCE: 'push', CI_COMMIT_BRANCH: 'main', SHOP_SHIELD_SECRET }));
      expect(applied.code, applied.stdout + applied.stderr).to.equal(0);
      expect(applied.stdout).to.include('applied docs.example (1 write(s))');
      expect((await records('docs.example')).map((record) => record.content)).to.include('from a merge request');
    });
  });
});

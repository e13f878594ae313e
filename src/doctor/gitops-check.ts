// GitOps as `cdn doctor` sees it: the repository the core's controller follows (CDN_GITOPS_REPO)
// answers with its branch, and the last recorded run of each repository (gitopsStatus, as
// `cdn status` and the overview read it) applied cleanly.
import type { Config } from '../config/load.js';
import type { Db } from '../db/client.js';
import { gitopsStatus } from '../features/gitops/service.js';
import { configuredCredentials } from '../gitops/git-access.js';
import { CloneSource, headOf, sourceFor, type DesiredSource } from '../gitops/source.js';
import { checkLine, type CheckResult } from './check-result.js';

type RepoStatus = Awaited<ReturnType<typeof gitopsStatus>>['repos'][number];

async function reachability(source: DesiredSource, timeoutMs: number): Promise<CheckResult> {
  if (!(source instanceof CloneSource)) {
    const head = await headOf(source.label);
    return head ? checkLine('gitops', 'ok', `the working copy ${source.label} is at ${head.slice(0, 12)}`) : checkLine('gitops', 'fail', `${source.label} is not a git working copy`, 'point CDN_GITOPS_REPO at a repository (a URL, or a clone on this machine)');
  }
  try {
    if (await source.hasBranch(timeoutMs)) return checkLine('gitops', 'ok', `${source.label} answers, branch ${source.branch} exists`);
    return checkLine('gitops', 'fail', `${source.label} has no branch ${source.branch}`, 'set CDN_GITOPS_BRANCH to the branch holding the desired state');
  } catch (error) {
    return checkLine('gitops', 'fail', (error as Error).message, 'check CDN_GITOPS_REPO and its credentials (CDN_GITOPS_REPO_TOKEN_FILE, CDN_GITOPS_SSH_KEY_FILE; docs/gitops.md)');
  }
}

// `named`: the line says which repository (not when it follows the configured repository's own line).
function runLine(repo: RepoStatus, named = true): CheckResult {
  const run = repo.last_run;
  const at = `${named ? `${repo.repo}: ` : ''}last run ${run.status}${run.commit_sha ? ` at ${run.commit_sha.slice(0, 12)}` : ''}`;
  const kept = repo.last_good_commit ? `; ${repo.last_good_commit.slice(0, 12)} stays in force` : '';
  switch (repo.state) {
    case 'ok':
      return checkLine('gitops', 'ok', at);
    case 'drifted':
      return checkLine('gitops', 'warn', `${at}, and the live state drifted from git`, 'see the drift in `cdn status`; the next run reverts it, or commit the change to git');
    case 'refused':
      return checkLine('gitops', 'fail', `${at}: the safety gate refused its deletes${kept}`, 'fix the commit, or accept the plan with `cdn accept-plan` (docs/gitops.md)');
    default:
      return checkLine('gitops', 'fail', `${at}${run.error ? `: ${run.error}` : ''}${kept}`, 'see `cdn runs` and `cdn status`; fix the repository and push');
  }
}

// The configured repository in one line when it answers and its last run applied; else each problem.
async function configuredRepoLines(source: DesiredSource, repos: RepoStatus[], db: Db | undefined, timeoutMs: number): Promise<CheckResult[]> {
  const reached = await reachability(source, timeoutMs);
  const repo = repos.find((candidate) => candidate.repo === source.label);
  if (!db) return [reached];
  if (!repo) return [reached, checkLine('gitops', 'warn', `no run of ${source.label} is recorded yet`, 'start a core with CDN_GITOPS_REPO: its controller reconciles every CDN_GITOPS_INTERVAL_SECONDS')];
  const ran = runLine(repo);
  if (reached.status === 'ok' && ran.status === 'ok') return [checkLine('gitops', 'ok', `${reached.message}; ${runLine(repo, false).message}`)];
  return [reached, ran];
}

/** `gitops`: the configured repository answers, and every repository's last run applied (no run yet: a warning). */
export async function gitopsCheck(db: Db | undefined, config: Config, timeoutMs: number): Promise<CheckResult[]> {
  const source = config.gitopsRepo ? sourceFor(config.gitopsRepo, config.gitopsBranch, config.gitopsPath, config.dataDir, configuredCredentials(config)) : undefined;
  const repos = db ? (await gitopsStatus(db, config)).repos : [];
  const lines = source ? await configuredRepoLines(source, repos, db, timeoutMs) : [];
  lines.push(...repos.filter((repo) => repo.repo !== source?.label).map((repo) => runLine(repo)));
  if (lines.length === 0) lines.push(checkLine('gitops', 'skip', 'CDN_GITOPS_REPO is not set and no run is recorded: GitOps is not in use', 'set CDN_GITOPS_REPO to have the core reconcile a repository (docs/gitops.md)'));
  return lines;
}

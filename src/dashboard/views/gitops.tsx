import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { Commit } from '../commit-link.js';
import { Empty, Failure, Loading, When } from '../components.js';
import { DriftTable, type Drift } from '../drift-table.js';
import { RepoState, RunStatus, runWords, triggerWords } from '../gitops-status.js';
import { Markdown } from '../markdown.js';
import { useApi } from '../use-api.js';
import { useSubmit } from '../use-submit.js';

type Run = { id: string; repo: string; commit_sha: string | null; status: string; trigger: string; started_at: number; finished_at: number | null; problems: string[]; error: string | null; domains: { domain: string; ok: boolean; applied: number; error?: string }[]; drift: Drift[]; reverted: Drift[]; plan_markdown: string | null };
type Repo = { repo: string; branch: string | null; in_core: boolean; state: string; last_good_commit: string | null; orphaned: string[]; managed?: { domain: string; file: string }[]; last_run: Run };

const POLL_MS = 1000;
const WAIT_MS = 60000;

/**
 * "Reconcile now": asks the core's controller for a run (POST /gitops/reconcile), then polls the
 * status until the run is recorded and says how it ended. Only the core's own repository can be woken.
 */
function ReconcileNow({ repo, refresh }: { repo: Repo; refresh: () => void }) {
  const [waiting, setWaiting] = useState<{ after: string; since: number }>();
  const [message, setMessage] = useState('');
  const { failure, busy, submit } = useSubmit(async () => {
    await api('POST', '/api/v1/gitops/reconcile', { repo: repo.repo });
    setWaiting({ after: repo.last_run.id, since: Date.now() });
    setMessage('Reconcile requested: waiting for the controller’s run…');
  });
  useEffect(() => {
    if (!waiting) return;
    if (repo.last_run.id !== waiting.after) {
      setWaiting(undefined);
      setMessage(`Reconciled at commit ${repo.last_run.commit_sha?.slice(0, 8) ?? '(none)'}: ${runWords(repo.last_run.status)}.`);
      return;
    }
    const timer = setInterval(() => {
      if (Date.now() - waiting.since < WAIT_MS) return refresh();
      setWaiting(undefined);
      setMessage('No run recorded within a minute: the controller may still be busy (see the runs below).');
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [waiting, repo.last_run.id]);
  if (!repo.in_core) {
    return <p class="muted">Reconciled by a separate <code>cdn reconcile</code> process, on its own interval: this core cannot start its runs.</p>;
  }
  return (
    <form class="inline" onSubmit={submit} aria-label={`Reconcile ${repo.repo}`}>
      <button type="submit" disabled={busy || waiting !== undefined}>
        Reconcile now
      </button>
      <p role="status" class="muted">
        {message}
      </p>
      <Failure failure={failure} />
    </form>
  );
}

function RepoCard({ repo, refresh }: { repo: Repo; refresh: () => void }) {
  const run = repo.last_run;
  const domains = repo.managed?.length ?? 0;
  return (
    <div class="card">
      <h2>{repo.repo}</h2>
      <p>
        <RepoState state={repo.state} /> branch {repo.branch ?? '—'}, last good commit <Commit repo={repo.repo} sha={repo.last_good_commit} />, {domains} domain{domains === 1 ? '' : 's'}
        {repo.orphaned.length ? `, orphaned: ${repo.orphaned.join(', ')}` : ''}
      </p>
      <p>
        Last run <When at={run.started_at} /> {triggerWords(run.trigger)}, commit <Commit repo={repo.repo} sha={run.commit_sha} />: <RunStatus status={run.status} />
      </p>
      {run.error ? <p class="failure">{run.error}</p> : null}
      <ReconcileNow repo={repo} refresh={refresh} />
      <DriftTable title="Drift: changed through the API, left so" items={run.drift} />
      {run.plan_markdown ? (
        <details open>
          <summary>Plan of the last run</summary>
          <p>
            Planned from commit <Commit repo={repo.repo} sha={run.commit_sha} />
          </p>
          <Markdown source={run.plan_markdown} />
        </details>
      ) : null}
    </div>
  );
}

function RunDetails({ run }: { run: Run }) {
  return (
    <details class="run">
      <summary>
        <When at={run.started_at} /> <RunStatus status={run.status} /> <code>{run.commit_sha?.slice(0, 8) ?? '—'}</code> ({triggerWords(run.trigger)})
      </summary>
      <p>
        Commit <Commit repo={run.repo} sha={run.commit_sha} /> of {run.repo}
      </p>
      {run.error ? <p class="failure">{run.error}</p> : null}
      {run.problems.length ? (
        <ul>
          {run.problems.map((problem) => (
            <li key={problem}>
              <code>{problem}</code>
            </li>
          ))}
        </ul>
      ) : null}
      <DriftTable title="Drift" items={run.drift} />
      <DriftTable title="Reverted (self-heal)" items={run.reverted} liveLabel="Live before the revert" />
      {run.domains.length ? (
        <ul>
          {run.domains.map((domain) => (
            <li key={domain.domain}>
              {domain.domain}: {domain.ok ? `${domain.applied} write(s) applied` : `failed, left as it was: ${domain.error}`}
            </li>
          ))}
        </ul>
      ) : null}
    </details>
  );
}

/** The controller's state per repository (reconcile now, drift field by field, the last plan) and its runs. */
export function GitopsView() {
  const status = useApi<{ repos: Repo[] }>('/api/v1/gitops/status');
  const runs = useApi<Run[]>('/api/v1/gitops/runs?limit=20');
  const refresh = () => {
    status.reload();
    runs.reload();
  };
  return (
    <section aria-labelledby="gitops-title">
      <h1 id="gitops-title">GitOps</h1>
      <Failure failure={status.failure ?? runs.failure} />
      <Loading when={status.loading && !status.data} />
      {status.data && status.data.repos.length === 0 ? <Empty>No repository has reported a run: set CDN_GITOPS_REPO (docs/gitops.md).</Empty> : null}
      {status.data?.repos.map((repo) => <RepoCard key={repo.repo} repo={repo} refresh={refresh} />)}
      <h2>Runs</h2>
      {runs.data?.map((run) => <RunDetails key={run.id} run={run} />)}
    </section>
  );
}

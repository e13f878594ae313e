import { Badge, Empty, Failure, Loading, When } from '../components.js';
import { Markdown } from '../markdown.js';
import { useApi } from '../use-api.js';
import { runTone } from './overview.js';

type Drift = { domain: string; resource: string; key: string; fields: { field: string; before: unknown; after: unknown }[] };
type Run = { id: string; repo: string; commit_sha: string | null; status: string; trigger: string; started_at: number; problems: string[]; error: string | null; domains: { domain: string; ok: boolean; applied: number; error?: string }[]; drift: Drift[]; reverted: Drift[]; plan_markdown: string | null };
type Repo = { repo: string; branch: string | null; state: string; last_good_commit: string | null; orphaned: string[]; managed?: { domain: string; file: string }[]; last_run: Run };

function DriftList({ title, items }: { title: string; items: Drift[] }) {
  if (!items.length) return null;
  return (
    <>
      <h4>{title}</h4>
      <ul>
        {items.map((item) => (
          <li key={`${item.domain} ${item.resource} ${item.key}`}>
            {item.domain} {item.resource} <code>{item.key}</code>
            {item.fields.length ? `: ${item.fields.map((field) => `${field.field} ${JSON.stringify(field.before)} → ${JSON.stringify(field.after)}`).join(', ')}` : ''}
          </li>
        ))}
      </ul>
    </>
  );
}

/** The controller's state per repository and its runs, with per-domain results and rejected commits' problems. */
export function GitopsView() {
  const status = useApi<{ repos: Repo[] }>('/api/v1/gitops/status');
  const runs = useApi<Run[]>('/api/v1/gitops/runs?limit=20');
  return (
    <section aria-labelledby="gitops-title">
      <h1 id="gitops-title">GitOps</h1>
      <Failure failure={status.failure ?? runs.failure} />
      <Loading when={status.loading && !status.data} />
      {status.data && status.data.repos.length === 0 ? <Empty>No repository has reported a run: set CDN_GITOPS_REPO (docs/gitops.md).</Empty> : null}
      {status.data?.repos.map((repo) => (
        <div class="card" key={repo.repo}>
          <h2>{repo.repo}</h2>
          <p>
            <Badge tone={runTone(repo.state === 'ok' ? 'applied' : repo.state)}>{repo.state}</Badge> branch {repo.branch ?? '—'}, last good commit <code>{repo.last_good_commit?.slice(0, 8) ?? '—'}</code>, {repo.managed?.length ?? 0} domain{repo.managed?.length === 1 ? '' : 's'}
            {repo.orphaned.length ? `, orphaned: ${repo.orphaned.join(', ')}` : ''}
          </p>
          <DriftList title="Drift: changed through the API, left so" items={repo.last_run.drift} />
          {repo.last_run.plan_markdown ? (
            <details open>
              <summary>Plan of the last run</summary>
              <Markdown source={repo.last_run.plan_markdown} />
            </details>
          ) : null}
        </div>
      ))}
      <h2>Runs</h2>
      {runs.data?.map((run) => (
        <details class="run" key={run.id}>
          <summary>
            <When at={run.started_at} /> <Badge tone={runTone(run.status)}>{run.status}</Badge> <code>{run.commit_sha?.slice(0, 8) ?? '—'}</code> ({run.trigger})
          </summary>
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
          <DriftList title="Drift" items={run.drift} />
          <DriftList title="Reverted (self-heal)" items={run.reverted} />
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
      ))}
    </section>
  );
}

import { useState } from 'preact/hooks';
import { Badge, DataTable, Empty, Failure, Loading, When } from '../components.js';
import { Commit } from '../commit-link.js';
import { ConfigRollout } from '../config-rollout.js';
import { RunStatus } from '../gitops-status.js';
import { useApi } from '../use-api.js';

type Overview = {
  domains: { total: number; pending_nameserver: number; active: number; disabled: number };
  edges: { total: number; healthy: number };
  publish: { active_version: number | null; last_publish_at: number | null; dirty: boolean; last_error: string | null };
};
type Warning = { code: string; severity: 'info' | 'warning' | 'critical'; message: string; domain_id?: string };
type Run = { id: string; repo: string; commit_sha: string | null; status: string; trigger: string; started_at: number; counts: Record<string, number> };

const SEVERITY_TONE = { info: 'neutral', warning: 'warn', critical: 'bad' } as const;
// The most severe come first; a long list (a thousand domains waiting for delegation) is opened on demand.
const WARNINGS_SHOWN = 20;

/** Totals, the config rollout, warnings, recent GitOps runs and edge pool health, from /overview, /config/rollout, /overview/warnings and /gitops/runs. */
export function OverviewView() {
  const overview = useApi<Overview>('/api/v1/overview');
  const [allWarnings, setAllWarnings] = useState(false);
  const warnings = useApi<{ count: number; warnings: Warning[] }>(`/api/v1/overview/warnings${allWarnings ? '' : `?limit=${WARNINGS_SHOWN}`}`);
  const runs = useApi<Run[]>('/api/v1/gitops/runs?limit=5');
  const listed = warnings.data?.warnings ?? [];
  const data = overview.data;
  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview</h1>
      <Failure failure={overview.failure} />
      <Loading when={overview.loading && !data} />
      {data ? (
        <dl class="totals">
          <div>
            <dt>Domains</dt>
            <dd>{data.domains.total}</dd>
            <dd class="muted">
              {data.domains.active} active, {data.domains.pending_nameserver} pending
            </dd>
          </div>
          <div>
            <dt>Edges healthy</dt>
            <dd>
              {data.edges.healthy} / {data.edges.total}
            </dd>
          </div>
          <div>
            <dt>Published config</dt>
            <dd>{data.publish.active_version === null ? 'none yet' : `version ${data.publish.active_version}`}</dd>
            <dd class="muted">{data.publish.dirty ? 'changes waiting to publish' : 'up to date'}</dd>
          </div>
        </dl>
      ) : null}
      <ConfigRollout />
      <h2>Warnings</h2>
      <Failure failure={warnings.failure} />
      {warnings.data && warnings.data.count === 0 ? <Empty>No warnings.</Empty> : null}
      <ul class="warnings">
        {listed.map((warning) => (
          <li key={`${warning.code}-${warning.domain_id ?? ''}-${warning.message}`}>
            <Badge tone={SEVERITY_TONE[warning.severity]}>{warning.severity}</Badge> {warning.domain_id ? <a href={`/domains/${warning.domain_id}`}>{warning.message}</a> : warning.message}
          </li>
        ))}
      </ul>
      {warnings.data && listed.length < warnings.data.count ? (
        <button type="button" onClick={() => setAllWarnings(true)}>
          Show all {warnings.data.count} warnings
        </button>
      ) : null}
      <h2>Recent GitOps runs</h2>
      <Failure failure={runs.failure} />
      {runs.data && runs.data.length === 0 ? <Empty>No GitOps runs yet: set CDN_GITOPS_REPO to reconcile a repository.</Empty> : null}
      {runs.data?.length ? (
        <DataTable
          label="Recent GitOps runs"
          columns={['Started', 'Commit', 'Status', 'Changes']}
          rows={runs.data}
          rowKey={(run) => run.id}
          cells={(run) => [
            <When at={run.started_at} />,
            <Commit repo={run.repo} sha={run.commit_sha} />,
            <RunStatus status={run.status} />,
            `${run.counts.creates ?? 0} created, ${run.counts.updates ?? 0} updated, ${run.counts.deletes ?? 0} deleted`,
          ]}
        />
      ) : null}
    </section>
  );
}

import { useEffect, useState } from 'preact/hooks';
import { Badge, DataTable, Empty, Failure } from './components.js';
import { CanaryControls, type CanaryRollout } from './canary-controls.js';
import { useApi } from './use-api.js';

type Laggard = { edge_id: string; active_version: number | null; reason: 'unreachable' | 'reload_failed' | 'behind'; error: string | null };
type EdgeRollout = { edge_id: string; active_version: number | null; serving: boolean; took_seconds: number | null };
type Rollout = { status: 'pending' | 'rolling_out' | 'converged' | 'rolled_back'; version: number | null; pool_edges: number; serving: number; laggards: Laggard[]; edges: EdgeRollout[]; summary: string; canary_rollout: CanaryRollout };

const POLL_MS = 2000;
const REASON_WORDS = { unreachable: 'unreachable (heartbeat stale)', reload_failed: 'reload failed', behind: 'behind' } as const;
const STATUS_TONE = { pending: 'warn', rolling_out: 'warn', converged: 'good', rolled_back: 'bad' } as const;
const STATUS_WORDS = { pending: 'not published yet', rolling_out: 'rolling out', converged: 'converged', rolled_back: 'rolled back' } as const;

function edgeState(edge: EdgeRollout, laggard: Laggard | undefined) {
  if (edge.serving) return <Badge tone="good">serving</Badge>;
  if (!laggard) return <Badge>waiting</Badge>;
  return (
    <>
      <Badge tone={laggard.reason === 'behind' ? 'warn' : 'bad'}>{REASON_WORDS[laggard.reason]}</Badge>
      {laggard.error ? ` ${laggard.error}` : ''}
    </>
  );
}

/** How far a config version has reached the edge pool (GET /config/rollout), polled every two seconds; the latest version unless one is asked for. */
export function ConfigRollout() {
  const [asked, setAsked] = useState('');
  const [version, setVersion] = useState('');
  const rollout = useApi<Rollout>(`/api/v1/config/rollout${version ? `?version=${encodeURIComponent(version)}` : ''}`);
  const { reload } = rollout;
  useEffect(() => {
    const timer = setInterval(reload, POLL_MS);
    return () => clearInterval(timer);
  }, [reload]);
  const data = rollout.data;
  const laggardOf = new Map((data?.laggards ?? []).map((laggard) => [laggard.edge_id, laggard]));
  return (
    <section aria-labelledby="rollout-title">
      <h2 id="rollout-title">Config rollout</h2>
      <form
        class="inline"
        aria-label="Rollout of a version"
        onSubmit={(event) => {
          event.preventDefault();
          setVersion(asked.trim());
        }}
      >
        <label>
          Version <input type="text" inputMode="numeric" value={asked} placeholder="latest" onInput={(event) => setAsked((event.target as HTMLInputElement).value)} />
        </label>
        <button type="submit">Show</button>
      </form>
      <Failure failure={rollout.failure} />
      {data ? (
        <p aria-live="polite">
          <Badge tone={STATUS_TONE[data.status]}>{STATUS_WORDS[data.status]}</Badge> {data.summary}
        </p>
      ) : null}
      {data?.canary_rollout ? <CanaryControls state={data.canary_rollout} onDone={reload} /> : null}
      {data && data.pool_edges === 0 ? <Empty>No edges in the pool: start one with cdn edge.</Empty> : null}
      {data?.edges.length ? (
        <DataTable
          label="Edges serving the version"
          columns={['Edge', 'Serves version', 'State', 'Took']}
          rows={data.edges}
          rowKey={(edge) => edge.edge_id}
          cells={(edge) => [edge.edge_id, edge.active_version ?? '—', edgeState(edge, laggardOf.get(edge.edge_id)), edge.took_seconds === null ? '—' : `${edge.took_seconds.toFixed(1)} s`]}
        />
      ) : null}
    </section>
  );
}

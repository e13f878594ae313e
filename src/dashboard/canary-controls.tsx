// The canary rollout in the overview's rollout view (docs/rollout.md): the fleet and canary
// versions, the verdict of the version acted on, and the operator's promote and abort buttons.
import { api } from './api.js';
import { Badge, Failure } from './components.js';
import { useSubmit } from './use-submit.js';

type Canary = { version: number; state: 'baking' | 'promoted' | 'failed' | 'aborted'; baseline_version: number; canary_edges: string[]; reason: string | null };
/** `canary_rollout` of GET /config/rollout. */
export type CanaryRollout = { enabled: boolean; fleet_version: number | null; canary_version: number | null; held_by_failed_version: number | null; versions: Canary[] };

const STATE_TONE = { baking: 'warn', promoted: 'good', failed: 'bad', aborted: 'neutral' } as const;

/** Shows the canary state; while a version bakes or failed, offers to promote or abort it (then `onDone`). */
export function CanaryControls({ state, onDone }: { state: CanaryRollout; onDone: () => void }) {
  const pending = state.versions.find((canary) => canary.state === 'baking' || canary.state === 'failed');
  const promote = useSubmit(async () => {
    await api('POST', '/api/v1/config/rollout/promote');
    onDone();
  });
  const abort = useSubmit(async () => {
    await api('POST', '/api/v1/config/rollout/abort');
    onDone();
  });
  if (!state.enabled) return null;
  return (
    <div aria-label="Canary rollout">
      <p>
        Canary rollout: the fleet serves version {state.fleet_version}
        {state.canary_version === null ? '' : `; canaries serve version ${state.canary_version}`}.
      </p>
      {state.held_by_failed_version !== null ? (
        <p role="alert">
          <Badge tone="bad">held</Badge> Version {state.held_by_failed_version} failed on its canaries and was rolled back; later versions wait until you promote or abort it.
        </p>
      ) : null}
      {pending ? (
        <>
          <p>
            <Badge tone={STATE_TONE[pending.state]}>{pending.state}</Badge> version {pending.version} on {pending.canary_edges.join(', ')}: {pending.reason ?? 'waiting for the canaries’ first heartbeat'}
          </p>
          <form class="inline" aria-label="Decide the canary version" onSubmit={(event) => void promote.submit(event)}>
            <button type="submit" disabled={promote.busy || abort.busy}>
              Promote version {pending.version}
            </button>
            <button type="button" disabled={promote.busy || abort.busy} onClick={(event) => void abort.submit(event)}>
              Abort version {pending.version}
            </button>
          </form>
          <Failure failure={promote.failure ?? abort.failure} />
        </>
      ) : null}
    </div>
  );
}

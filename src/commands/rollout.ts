// `cdn rollout status|promote|abort`: the canary rollout from the command line (docs/rollout.md).
import { ApiClient } from '../gitops/api-client.js';

export type RolloutCommandOptions = { url?: string; token?: string; json?: boolean };

function clientOf(options: RolloutCommandOptions): ApiClient {
  return new ApiClient(options.url ?? process.env.CDN_API_URL ?? 'http://127.0.0.1:8080', options.token ?? process.env.CDN_API_TOKEN);
}

type Canary = { version: number; state: string; baseline_version: number; canary_edges: string[]; reason: string | null; decided_by: string | null };
type CanaryRollout = { enabled: boolean; fleet_version: number | null; canary_version: number | null; held_by_failed_version: number | null; versions: Canary[] };

function canaryLine(canary: Canary): string {
  return `version ${canary.version} ${canary.state} (from ${canary.baseline_version}, canaries ${canary.canary_edges.join(', ') || 'none'})${canary.decided_by ? ` by ${canary.decided_by}` : ''}${canary.reason ? `: ${canary.reason}` : ''}`;
}

/** `cdn rollout status`: the latest version's convergence and the canary state. */
export async function runRolloutStatus(options: RolloutCommandOptions): Promise<void> {
  const data = (await clientOf(options).request('GET', '/api/v1/config/rollout')).data as { summary: string; canary_rollout: CanaryRollout };
  if (options.json) {
    process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
    return;
  }
  const state = data.canary_rollout;
  process.stdout.write(`${data.summary}\n`);
  if (!state.enabled) return void process.stdout.write('canary rollout: off\n');
  process.stdout.write(`canary rollout: fleet on version ${state.fleet_version}${state.canary_version === null ? '' : `, canaries on version ${state.canary_version}`}\n`);
  if (state.held_by_failed_version !== null) process.stdout.write(`held: version ${state.held_by_failed_version} failed; later versions wait for cdn rollout promote or abort\n`);
  for (const canary of state.versions) process.stdout.write(`  ${canaryLine(canary)}\n`);
}

/** `cdn rollout promote` and `cdn rollout abort`: decide the baking or failed version (audited). */
export async function runRolloutDecision(decision: 'promote' | 'abort', options: RolloutCommandOptions): Promise<void> {
  const canary = (await clientOf(options).request('POST', `/api/v1/config/rollout/${decision}`)).data as Canary;
  process.stdout.write(options.json ? `${JSON.stringify(canary, null, 2)}\n` : `${canaryLine(canary)}\n`);
}

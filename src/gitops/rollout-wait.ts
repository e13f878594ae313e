// `--wait[=SECONDS]` of cdn apply and cdn reconcile --once: polls GET /api/v1/config/rollout
// until every pool edge serves the version that publishes the run's writes, like
// `kubectl rollout status` (docs/gitops.md, Waiting for the edges).
import type { ApiClient } from './api-client.js';

/** The exit code of a wait that timed out (plan and apply keep 0-4; docs/gitops.md). */
export const EXIT_ROLLOUT_TIMEOUT = 5;
/** The exit code of a wait whose version failed on the canaries and was rolled back (docs/rollout.md). */
export const EXIT_ROLLED_BACK = 6;
export const DEFAULT_WAIT_SECONDS = 300;
const MAX_WAIT_SECONDS = 86_400;
const POLL_MS = 500;

type Laggard = { edge_id: string; active_version: number | null; reason: string; error: string | null };
/** The part of the rollout answer the wait reads. */
export type RolloutAnswer = { status: 'pending' | 'rolling_out' | 'converged' | 'rolled_back'; version: number | null; pool_edges: number; serving: number; laggards: Laggard[]; summary: string };

/** The timeout `--wait` was given: `true` (no value) is DEFAULT_WAIT_SECONDS; otherwise whole seconds from 1 to a day. */
export function waitSeconds(value: string | boolean): number {
  if (value === true) return DEFAULT_WAIT_SECONDS;
  const text = String(value);
  if (!/^\d{1,6}$/.test(text) || Number(text) < 1 || Number(text) > MAX_WAIT_SECONDS) throw new Error(`--wait takes whole seconds from 1 to ${MAX_WAIT_SECONDS}, got ${text}`);
  return Number(text);
}

/** The rollout query of a client's writes: the version publishing its last change, else (it wrote nothing) the latest. */
export function rolloutQueryOf(change: bigint | string | null): string {
  return change === null ? '' : `?change=${change}`;
}

function describeLaggard(laggard: Laggard): string {
  const on = laggard.active_version === null ? 'no version' : `version ${laggard.active_version}`;
  return `${laggard.edge_id} (${laggard.reason}, on ${on}${laggard.error ? `: ${laggard.error}` : ''})`;
}

/** The line a timed-out wait ends with: the count and every laggard with why. */
export function timeoutMessage(seconds: number, rollout: RolloutAnswer): string {
  const laggards = rollout.laggards.map(describeLaggard).join(', ');
  return `timed out after ${seconds}s: ${rollout.summary}${laggards ? `; laggards: ${laggards}` : ''}`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls the rollout of `query` until it is converged (every pool edge serves the version or a
 * later one; no pool edges at all is converged) or `seconds` pass. Each new summary is written to
 * `progress`. Returns whether it converged and the last answer.
 */
export async function waitForRollout(client: ApiClient, query: string, seconds: number, progress: (line: string) => void): Promise<{ converged: boolean; rollout: RolloutAnswer }> {
  const deadline = Date.now() + seconds * 1000;
  let shown = '';
  for (;;) {
    const rollout = (await client.request<{ data: RolloutAnswer }>('GET', `/api/v1/config/rollout${query}`)).data;
    if (rollout.summary !== shown) progress((shown = rollout.summary));
    if (rollout.status === 'converged') return { converged: true, rollout };
    if (rollout.status === 'rolled_back') return { converged: false, rollout };
    if (Date.now() >= deadline) return { converged: false, rollout };
    await sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())));
  }
}

/** Waits as `--wait` does and says how it ended on stderr; returns the exit code (0, EXIT_ROLLOUT_TIMEOUT, or EXIT_ROLLED_BACK when canaries rolled the version back). */
export async function waitAndReport(client: ApiClient, change: bigint | string | null, seconds: number): Promise<number> {
  const { converged, rollout } = await waitForRollout(client, rolloutQueryOf(change), seconds, (line) => process.stderr.write(`rollout: ${line}\n`));
  if (converged) return 0;
  if (rollout.status === 'rolled_back') {
    process.stderr.write(`rolled back: ${rollout.summary}\n`);
    return EXIT_ROLLED_BACK;
  }
  process.stderr.write(`${timeoutMessage(seconds, rollout)}\n`);
  return EXIT_ROLLOUT_TIMEOUT;
}

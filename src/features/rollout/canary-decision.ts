// The canary rollout's pure parts (docs/rollout.md): which edges are canaries, the counters summed
// per side, and whether a baking version is promoted, failed or still waits.
import { createHash } from 'node:crypto';

/** One edge's counters for one config version, as its heartbeat reports them. */
export type VersionCount = { version: number; requests: number; status_5xx: number; origin_errors: number };

/** The `rollout` settings group. */
export type RolloutSettings = { enabled: boolean; canary_labels: string[]; canary_percent: number; bake_seconds: number; max_error_margin_percent: number; min_canary_requests: number };

/** Counters summed over a set of edges for one version, with the 5xx ratio (0 without requests). */
export type Totals = { version: number; edges: number; requests: number; status_5xx: number; origin_errors: number; error_ratio: number };

/** What a verdict was taken on: shown by GET /config/rollout, the overview and the GitOps run. */
export type CanaryNumbers = { canary: Totals; baseline: Totals; max_error_ratio: number; min_canary_requests: number; baked_seconds: number; bake_seconds: number };

export type Verdict = { decision: 'promote' | 'fail' | 'wait'; reason: string; numbers: CanaryNumbers };

type LabelledEdge = { edge_id: string; labels: string[] };

function hashOrder(edgeId: string): string {
  return createHash('sha256').update(edgeId).digest('hex');
}

/**
 * The canary edges among the pool: every edge carrying one of `canary_labels`, and
 * `canary_percent` of the pool rounded up, taken in the order of a hash of the edge id (the same
 * edges every time for the same pool), sorted by id.
 */
export function pickCanaries(pool: LabelledEdge[], settings: Pick<RolloutSettings, 'canary_labels' | 'canary_percent'>): string[] {
  const wanted = new Set(settings.canary_labels);
  const chosen = new Set(pool.filter((edge) => edge.labels.some((label) => wanted.has(label))).map((edge) => edge.edge_id));
  const byHash = [...pool].sort((a, b) => hashOrder(a.edge_id).localeCompare(hashOrder(b.edge_id)));
  for (const edge of byHash.slice(0, Math.ceil((pool.length * settings.canary_percent) / 100))) chosen.add(edge.edge_id);
  return [...chosen].sort();
}

/** Sums the counters `version` has on each edge's report (one list per edge). */
export function totalsOf(version: number, reports: VersionCount[][]): Totals {
  const totals = { version, edges: 0, requests: 0, status_5xx: 0, origin_errors: 0 };
  for (const report of reports) {
    const count = report.find((entry) => entry.version === version);
    if (!count) continue;
    totals.edges++;
    totals.requests += count.requests;
    totals.status_5xx += count.status_5xx;
    totals.origin_errors += count.origin_errors;
  }
  return { ...totals, error_ratio: totals.requests === 0 ? 0 : totals.status_5xx / totals.requests };
}

function percent(ratio: number): string {
  return `${(ratio * 100).toFixed(2)}%`;
}

/**
 * Judges a baking version: failed as soon as the canaries served `min_canary_requests` with a 5xx
 * ratio above the fleet's on the baseline version plus the margin; promoted once it baked
 * `bake_seconds` with at least `min_canary_requests` and the ratio within it; otherwise it waits.
 */
export function judgeCanary(settings: RolloutSettings, canary: Totals, baseline: Totals, bakedSeconds: number): Verdict {
  const maxRatio = baseline.error_ratio + settings.max_error_margin_percent / 100;
  const numbers: CanaryNumbers = { canary, baseline, max_error_ratio: maxRatio, min_canary_requests: settings.min_canary_requests, baked_seconds: Math.floor(bakedSeconds), bake_seconds: settings.bake_seconds };
  const ratios = `canary 5xx ratio ${percent(canary.error_ratio)} (${canary.status_5xx} of ${canary.requests} requests, ${canary.origin_errors} origin errors) against ${percent(baseline.error_ratio)} on version ${baseline.version} (${baseline.status_5xx} of ${baseline.requests}), margin ${settings.max_error_margin_percent} points`;
  if (canary.requests < settings.min_canary_requests) return { decision: 'wait', reason: `${canary.requests} of ${settings.min_canary_requests} canary requests served`, numbers };
  if (canary.error_ratio > maxRatio) return { decision: 'fail', reason: `${ratios}: above ${percent(maxRatio)}`, numbers };
  if (bakedSeconds < settings.bake_seconds) return { decision: 'wait', reason: `baking: ${Math.floor(bakedSeconds)} of ${settings.bake_seconds} s; ${ratios}`, numbers };
  return { decision: 'promote', reason: `baked ${settings.bake_seconds} s; ${ratios}: within ${percent(maxRatio)}`, numbers };
}

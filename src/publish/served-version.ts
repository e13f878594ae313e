// Which config version an edge is served (docs/rollout.md): the newest one while rollout is off;
// with rollout on, the promoted fleet version, or the baking canary version for its canary edges.

/** The versions publish_state holds, with the canary edges of the version that bakes. */
export type VersionState = { active: number | null; fleet: number | null; canary: number | null; canaryEdges: ReadonlySet<string> };

export const NO_VERSIONS: VersionState = { active: null, fleet: null, canary: null, canaryEdges: new Set() };

/** The version `edgeId` must serve now; the active version when no edge is named or rollout is off. */
export function servedVersion(state: VersionState, edgeId?: string): number | null {
  if (edgeId === undefined || state.fleet === null) return state.active;
  if (state.canary !== null && state.canaryEdges.has(edgeId)) return state.canary;
  return state.fleet;
}

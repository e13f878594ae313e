// The rule `cdn edge` applies to CDN_EDGE_CLEARANCE_SECRET, apart from the edge's modules so
// `cdn doctor` can apply it without loading the edge.
import type { Config } from '../config/load.js';

/** The shortest clearance secret an edge takes (also the length of one it makes for itself). */
export const MIN_SECRET = 32;

/** Why `cdn edge` refuses CDN_EDGE_CLEARANCE_SECRET as set (too short, or unset in production); undefined when it starts. */
export function clearanceSecretProblem(config: Pick<Config, 'edgeClearanceSecret' | 'env'>): string | undefined {
  if (config.edgeClearanceSecret) {
    return config.edgeClearanceSecret.length < MIN_SECRET ? `CDN_EDGE_CLEARANCE_SECRET must be at least ${MIN_SECRET} characters` : undefined;
  }
  return config.env === 'production' ? 'CDN_EDGE_CLEARANCE_SECRET must be set in production (the same value on every edge)' : undefined;
}

import type { Config } from '../config/load.js';
import { runEdge } from '../edge/start.js';

/** `cdn edge`: the edge proxy and its agent (docs/edge.md). */
export async function runEdgeCommand(config: Config): Promise<void> {
  await runEdge(config);
}

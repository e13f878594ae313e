import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pino from 'pino';
import { ConfigError, type Config } from '../config/load.js';
import { resolveEdgeId } from './agent/edge-agent.js';
import { clearanceSecretProblem, MIN_SECRET } from './clearance-secret.js';
import { runEdgePrimary } from './primary/edge-primary.js';
import { runEdgeWorker } from './worker/edge-worker.js';

// Outside production an edge without CDN_EDGE_CLEARANCE_SECRET makes one and keeps it in its data folder,
// so clearances survive a restart; several edges sharing clearances must be given the same secret.
async function clearanceSecret(config: Config): Promise<string> {
  const problem = clearanceSecretProblem(config);
  if (problem) throw new ConfigError(problem);
  if (config.edgeClearanceSecret) return config.edgeClearanceSecret;
  const file = path.resolve(config.edgeDataDir, 'clearance-secret');
  const existing = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (existing.length >= MIN_SECRET) return existing;
  const secret = randomBytes(32).toString('base64url');
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/**
 * `cdn edge`: in the primary, checks the settings and starts the agent and the
 * workers; in a worker (the same command, forked by the cluster), serves traffic.
 */
export async function runEdge(config: Config): Promise<void> {
  const logger = pino({ name: cluster.isPrimary ? 'cdn-edge' : 'cdn-edge-worker', level: config.logLevel, base: { pid: process.pid } });
  if (!cluster.isPrimary) return runEdgeWorker(config, logger);
  if (!config.edgeToken) throw new ConfigError('CDN_EDGE_TOKEN must be set (create one with `cdn edge-token create`)');
  const edgeId = resolveEdgeId(config.edgeId);
  const secret = await clearanceSecret(config);
  await mkdir(config.edgeDataDir, { recursive: true });
  await runEdgePrimary({ ...config, edgeId }, logger, { CDN_EDGE_ID: edgeId, CDN_EDGE_CLEARANCE_SECRET: secret });
}

// The edges as `cdn doctor` sees them: registered, heartbeats fresh (the pool's own window,
// CDN_EDGE_HEARTBEAT_FRESH_SECONDS), and serving the version they must serve (servedVersion: the
// newest one, or the rollout's fleet or canary version while a canary rollout is on).
import type pg from 'pg';
import type { Config } from '../config/load.js';
import type { Db } from '../db/client.js';
import { FORGET_SILENT_EDGE_SECONDS, isFresh } from '../features/rollout/service.js';
import { readVersionState } from '../publish/active-version.js';
import { servedVersion, type VersionState } from '../publish/served-version.js';
import { checkLine, counted, someOf, type CheckResult } from './check-result.js';

type EdgeRow = { edge_id: string; last_heartbeat_at: Date | null; health_status: string; config_version: number | null; config_error: string | null };

function silentFor(edge: EdgeRow, now: Date): string {
  if (!edge.last_heartbeat_at) return `${edge.edge_id} (never sent a heartbeat)`;
  return `${edge.edge_id} (last heartbeat ${Math.round((now.getTime() - edge.last_heartbeat_at.getTime()) / 1000)} s ago)`;
}

// An edge silent past the rollout's FORGET_SILENT_EDGE_SECONDS is no longer awaited anywhere (a machine
// taken away without being disabled): named, but no failure, or a retired edge would fail doctor for ever.
function staleLines(edges: EdgeRow[], config: Config, now: Date): CheckResult[] {
  const stale = edges.filter((edge) => !isFresh(edge, config.edgeHeartbeatFreshSeconds, now));
  const forgotten = stale.filter((edge) => !isFresh(edge, FORGET_SILENT_EDGE_SECONDS, now));
  const lost = stale.filter((edge) => !forgotten.includes(edge));
  const lines: CheckResult[] = [];
  if (lost.length) {
    lines.push(checkLine('edges', 'fail', `${lost.length} of ${counted(edges.length, 'edge')} stale, out of the pool: ${someOf(lost.map((edge) => silentFor(edge, now)))}`, 'start or repair `cdn edge` there; it must reach the core at CDN_EDGE_CORE_URL (its log says why heartbeats fail)'));
  }
  if (forgotten.length) {
    lines.push(checkLine('edges', 'warn', `${counted(forgotten.length, 'edge')} silent for over ${FORGET_SILENT_EDGE_SECONDS / 3600} h: ${someOf(forgotten.map((edge) => silentFor(edge, now)))}`, 'start them again, or leave them if they were taken away for good (rollouts no longer wait for them)'));
  }
  return lines;
}

type Lag = { edge: EdgeRow; expected: number };

async function versionAges(db: Db, versions: number[], now: Date): Promise<Map<number, number>> {
  const rows = await db.configSnapshot.findMany({ where: { version: { in: versions } }, select: { version: true, created_at: true } });
  return new Map(rows.map((row) => [row.version, (now.getTime() - row.created_at.getTime()) / 1000]));
}

// A fresh edge behind the version to serve: refused it (its heartbeat says why), or still fetching it,
// which is normal for one freshness window after the version was published and a failure after that.
async function behindLines(db: Db, live: EdgeRow[], state: VersionState, config: Config, now: Date): Promise<CheckResult[]> {
  const behind: Lag[] = live
    .map((edge) => ({ edge, expected: servedVersion(state, edge.edge_id) }))
    .filter((lag): lag is Lag => lag.expected !== null && (lag.edge.config_version === null || lag.edge.config_version < lag.expected));
  if (behind.length === 0) return [];
  const describe = (lag: Lag) => `${lag.edge.edge_id} on ${lag.edge.config_version ?? 'no version'}, not ${lag.expected}${lag.edge.config_error ? `: ${lag.edge.config_error}` : ''}`;
  const refused = behind.filter((lag) => lag.edge.config_error);
  const ages = await versionAges(db, [...new Set(behind.map((lag) => lag.expected))], now);
  const waiting = behind.filter((lag) => !lag.edge.config_error);
  const late = waiting.filter((lag) => (ages.get(lag.expected) ?? Infinity) > config.edgeHeartbeatFreshSeconds);
  const arriving = waiting.filter((lag) => !late.includes(lag));
  const lines: CheckResult[] = [];
  if (refused.length) lines.push(checkLine('edges', 'fail', `${counted(refused.length, 'edge')} refused the version to serve: ${someOf(refused.map(describe), 2)}`, 'fix what the edge refuses (docs/snapshots.md; a snapshot over CDN_EDGE_CONFIG_MAX_BYTES on the edge, most often)'));
  if (late.length) lines.push(checkLine('edges', 'fail', `${counted(late.length, 'edge')} behind the version to serve: ${someOf(late.map(describe))}`, 'check that they reach the core at CDN_EDGE_CORE_URL (`cdn rollout status` shows the rollout)'));
  if (arriving.length) lines.push(checkLine('edges', 'warn', `${counted(arriving.length, 'edge')} still fetching a version published moments ago: ${someOf(arriving.map(describe))}`, 'run doctor again in a minute'));
  return lines;
}

function healthLines(live: EdgeRow[]): CheckResult[] {
  const unhealthy = live.filter((edge) => edge.health_status !== 'healthy');
  if (unhealthy.length === 0) return [];
  return [checkLine('edges', 'fail', `${counted(unhealthy.length, 'edge')} reporting itself unhealthy, out of the pool: ${someOf(unhealthy.map((edge) => edge.edge_id))}`, 'see /ready on each of them')];
}

function summary(edges: EdgeRow[], state: VersionState): string {
  const version = state.fleet === null ? `the newest version (${state.active ?? 'none published yet'})` : `their rollout version (fleet ${state.fleet}${state.canary === null ? '' : `, canaries ${state.canary}`})`;
  return `${counted(edges.length, 'edge')} registered, all fresh, healthy and on ${version}`;
}

/** `edges`: at least one enabled edge, none stale or unhealthy, each on the version it must serve. */
export async function edgesCheck(db: Db, pool: pg.Pool, config: Config, now = new Date()): Promise<CheckResult[]> {
  const edges: EdgeRow[] = await db.edgeNode.findMany({
    where: { enabled: true },
    select: { edge_id: true, last_heartbeat_at: true, health_status: true, config_version: true, config_error: true },
    orderBy: { edge_id: 'asc' },
  });
  if (edges.length === 0) return [checkLine('edges', 'fail', 'no edge is registered: nothing serves traffic', 'start `cdn edge` with a token from `cdn edge-token create` and CDN_EDGE_CORE_URL set to this core')];
  const live = edges.filter((edge) => isFresh(edge, config.edgeHeartbeatFreshSeconds, now));
  const state = await readVersionState(pool);
  const lines = [...staleLines(edges, config, now), ...healthLines(live), ...(await behindLines(db, live, state, config, now))];
  return lines.length ? lines : [checkLine('edges', 'ok', summary(edges, state))];
}

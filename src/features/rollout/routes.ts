import type { AppDeps } from '../../http/app.js';
import { ValidationError } from '../../http/errors.js';
import type { Route } from '../../http/route.js';
import { configRollout, type RolloutTarget } from './service.js';

const MAX_VERSION = 2147483647;
// change_seq and run ids are bigints; 18 digits stay below 2^63.
const BIG_DIGITS = /^\d{1,18}$/;

function versionOf(raw: unknown): number {
  if (typeof raw !== 'string' || !/^\d{1,10}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_VERSION) throw new ValidationError('version', `version must be a snapshot version, an integer from 1 to ${MAX_VERSION}`);
  return Number(raw);
}

function bigOf(name: string, raw: unknown): bigint {
  if (typeof raw !== 'string' || !BIG_DIGITS.test(raw) || BigInt(raw) < 1n) throw new ValidationError(name, `${name} must be a positive integer of at most 18 digits`);
  return BigInt(raw);
}

/** The version asked about: `version`, `change` (a write's X-CDN-Config-Change) or `run` (a GitOps run id), at most one; none is the latest. */
export function rolloutTarget(query: Record<string, unknown>): RolloutTarget {
  const given = (['version', 'change', 'run'] as const).filter((name) => query[name] !== undefined);
  if (given.length > 1) throw new ValidationError(given[1], 'give one of version, change and run');
  if (query.version !== undefined) return { kind: 'version', version: versionOf(query.version) };
  if (query.change !== undefined) return { kind: 'change', change: bigOf('change', query.change) };
  if (query.run !== undefined) return { kind: 'run', run: bigOf('run', query.run) };
  return { kind: 'latest' };
}

/** GET /api/v1/config/rollout: how far a config version has reached the edge pool. */
export function rolloutRoutes(deps: AppDeps): Route[] {
  return [
    {
      method: 'get',
      path: '/api/v1/config/rollout',
      auth: 'api',
      handler: async ({ db, query }) => ({ data: await configRollout(db, rolloutTarget(query), deps.config.edgeHeartbeatFreshSeconds) }),
    },
  ];
}

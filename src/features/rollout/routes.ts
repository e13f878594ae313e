import type { AppDeps } from '../../http/app.js';
import { ValidationError } from '../../http/errors.js';
import type { Route } from '../../http/route.js';
import { canaryOf, canaryState, decideCanary } from './canary-operator.js';
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

// A version whose canaries failed or were aborted will not reach the fleet: status rolled_back, and the summary says why with the numbers.
function rolledBack(canary: Awaited<ReturnType<typeof canaryOf>>) {
  if (!canary || (canary.state !== 'failed' && canary.state !== 'aborted')) return {};
  return { status: 'rolled_back' as const, summary: `version ${canary.version} ${canary.state} on canaries ${canary.canary_edges.join(', ')} and was rolled back to version ${canary.baseline_version}: ${canary.reason ?? ''}` };
}

// The canary rollout's promote and abort (docs/rollout.md), audited with the version they decided.
function canaryDecisionRoute(decision: 'promote' | 'abort'): Route {
  return {
    method: 'post',
    path: `/api/v1/config/rollout/${decision}`,
    response: 'canary-version-answer',
    auth: 'api',
    refusals: [409],
    audit: { action: `rollout.${decision}`, target: 'config_snapshot', targetId: (_context, result) => String(result?.data?.version ?? '') },
    handler: async ({ db, actor }) => ({ data: await decideCanary(db, decision, actor.name) }),
  };
}

/** GET /api/v1/config/rollout: how far a config version has reached the edge pool, with its canary state; promote and abort. */
export function rolloutRoutes(deps: AppDeps): Route[] {
  return [
    {
      method: 'get',
      path: '/api/v1/config/rollout',
      response: 'config-rollout-answer',
      query: [
        { name: 'version', description: 'The rollout of this snapshot version (at most one of version, change and run; none is the latest).', schema: { type: 'integer', minimum: 0 } },
        { name: 'change', description: 'The version that publishes this change (a write\'s X-CDN-Config-Change).', schema: { type: 'integer', minimum: 1 } },
        { name: 'run', description: 'The version that publishes this GitOps run (its id).', schema: { type: 'integer', minimum: 1 } },
      ],
      auth: 'api',
      handler: async ({ db, query }) => {
        const rollout = await configRollout(db, rolloutTarget(query), deps.config.edgeHeartbeatFreshSeconds);
        const [canary, state] = await Promise.all([rollout.version === null ? null : canaryOf(db, rollout.version), canaryState(db)]);
        return { data: { ...rollout, ...rolledBack(canary), canary, canary_rollout: state } };
      },
    },
    canaryDecisionRoute('promote'),
    canaryDecisionRoute('abort'),
  ];
}

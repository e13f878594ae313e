import type { AppDeps } from '../../http/app.js';
import type { Route } from '../../http/route.js';
import { ValidationError } from '../../http/errors.js';
import { MAX_LIMIT } from '../../http/paging.js';
import { overview } from './overview.js';
import { warnings } from './warnings.js';

// `limit` lists only the first warnings (the most severe); `count` still counts them all.
function warningLimit(query: Record<string, unknown>): number | undefined {
  if (query.limit === undefined) return undefined;
  const limit = typeof query.limit === 'string' && /^\d{1,3}$/.test(query.limit) ? Number(query.limit) : NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT)) throw new ValidationError('limit', `limit must be an integer from 1 to ${MAX_LIMIT}`);
  return limit;
}

/** The operations front page and its list of actionable warnings. */
export function operationsRoutes(deps: AppDeps): Route[] {
  return [
    { method: 'get', path: '/api/v1/overview', auth: 'api', handler: async ({ db }) => ({ data: await overview(db, deps.config) }) },
    {
      method: 'get',
      path: '/api/v1/overview/warnings',
      auth: 'api',
      handler: async ({ db, query }) => {
        const limit = warningLimit(query);
        const found = await warnings(db, deps.config, deps.dns?.loop?.status());
        return { data: limit === undefined ? found : { ...found, warnings: found.warnings.slice(0, limit) } };
      },
    },
  ];
}

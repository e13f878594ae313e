import type { AppDeps } from '../../http/app.js';
import type { Route } from '../../http/route.js';
import { overview } from './overview.js';
import { warnings } from './warnings.js';

/** The operations front page and its list of actionable warnings. */
export function operationsRoutes(deps: AppDeps): Route[] {
  return [
    { method: 'get', path: '/api/v1/overview', auth: 'api', handler: async ({ db }) => ({ data: await overview(db, deps.config) }) },
    { method: 'get', path: '/api/v1/overview/warnings', auth: 'api', handler: async ({ db }) => ({ data: await warnings(db, deps.config, deps.dns?.loop?.status()) }) },
  ];
}

import type { AppDeps } from '../../http/app.js';
import { parseOptionalPaging } from '../../http/paging.js';
import type { Route } from '../../http/route.js';
import { overview } from './overview.js';
import { warnings } from './warnings.js';

/** The operations front page and its list of actionable warnings. */
export function operationsRoutes(deps: AppDeps): Route[] {
  return [
    { method: 'get', path: '/api/v1/overview', response: 'overview-answer', auth: 'api', handler: async ({ db }) => ({ data: await overview(db, deps.config) }) },
    {
      method: 'get',
      path: '/api/v1/overview/warnings',
      response: 'overview-warnings-answer',
      auth: 'api',
      paged: true,
      // All warnings, most severe first, unless `limit` asks for a page; `count` still counts them all.
      handler: async ({ db, query }) => {
        const { limit, offset } = parseOptionalPaging(query);
        const found = await warnings(db, deps.config, deps.dns?.loop?.status());
        const end = limit === undefined ? undefined : offset + limit;
        return { data: { ...found, warnings: found.warnings.slice(offset, end) } };
      },
    },
  ];
}

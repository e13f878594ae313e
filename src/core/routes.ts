import type { AppDeps } from '../http/app.js';
import type { Route } from '../http/route.js';
import { adminRoutes } from '../features/admin/routes.js';
import { auditRoutes } from '../features/audit/routes.js';
import { dnsRoutes } from '../features/dns/routes.js';
import { domainRoutes } from '../features/domains/routes.js';
import { healthRoutes } from '../features/health/routes.js';
import { originRoutes } from '../features/origins/routes.js';
import { ruleRoutes } from '../features/rules/routes.js';
import { routingRoutes } from '../features/routing/routes.js';
import { settingsRoutes } from '../features/settings/routes.js';
import { cacheRoutes } from '../features/cache/routes.js';
import { analyticsRoutes } from '../features/analytics/routes.js';
import { securityRoutes } from '../features/security/routes.js';
import { operationsRoutes } from '../features/operations/routes.js';
import { exportRoutes } from '../features/export/routes.js';
import { gitopsRoutes } from '../features/gitops/routes.js';
import { sslRoutes } from '../features/ssl/routes.js';
import { edgeTlsRoutes } from '../features/ssl/edge-tls-routes.js';
import { edgeRoutes } from '../features/edges/routes.js';
import { snapshotRoutes } from '../features/snapshots/routes.js';
import { rolloutRoutes } from '../features/rollout/routes.js';
import { collectorRoutes } from '../features/collector/routes.js';
import { batchRoute } from '../http/batch.js';
import { openApiRoute } from '../http/openapi.js';

/** Every route of the core API, the batch route that runs their audited writes in one transaction, and the OpenAPI document of them all. */
export function coreRoutes(deps: AppDeps): Route[] {
  const routes = [
    ...healthRoutes(deps),
    ...adminRoutes(deps),
    ...domainRoutes(deps),
    ...dnsRoutes(deps),
    ...originRoutes(deps),
    ...ruleRoutes(deps),
    ...routingRoutes(),
    ...settingsRoutes(deps),
    ...cacheRoutes(deps),
    ...sslRoutes(deps),
    ...edgeTlsRoutes(deps),
    ...analyticsRoutes(),
    ...securityRoutes(),
    ...operationsRoutes(deps),
    ...exportRoutes(deps),
    ...gitopsRoutes(deps),
    ...edgeRoutes(deps),
    ...snapshotRoutes(deps),
    ...rolloutRoutes(deps),
    ...collectorRoutes(deps),
    ...auditRoutes(),
  ];
  const withBatch = [...routes, batchRoute(deps, routes)];
  return [...withBatch, openApiRoute(deps.ajv, withBatch)];
}

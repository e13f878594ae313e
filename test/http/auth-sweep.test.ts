import { expect } from 'chai';
import pino from 'pino';
import { ActiveVersion } from '../../src/publish/active-version.js';
import { loadConfig } from '../../src/config/load.js';
import { coreRoutes } from '../../src/core/routes.js';
import { loadApiSchemas } from '../../src/http/validation.js';
import { TestCore } from '../support/core.js';

// Every route the core declares, called without credentials while CDN_API_TOKEN is set:
// public ones must not answer 401 (except those that check a signature of their own), all others must.
const SELF_AUTHENTICATED = new Set(['/api/v1/gitops/webhook']);
describe('authentication on every route', () => {
  let core: TestCore;
  before(async () => {
    core = await TestCore.start({ CDN_API_TOKEN: 'sweep-token' });
  });
  after(async () => {
    await core.stop();
  });

  it('answers 401 without a bearer on every non-public route', async () => {
    const logger = pino({ level: 'silent' });
    const deps = { config: loadConfig({}), prisma: core.db, pool: core.core.connection.pool, ajv: loadApiSchemas(), logger, activeVersion: new ActiveVersion(core.core.connection.pool, core.databaseUrl, logger) };
    const routes = coreRoutes(deps);
    expect(routes.length).to.be.greaterThan(60);
    const failures: string[] = [];
    for (const route of routes) {
      const path = route.path.replace(/:(\w+)/g, 'sweep-$1');
      const response = await fetch(`${core.url}${path}`, { method: route.method.toUpperCase(), headers: { 'content-type': 'application/json' }, body: route.method === 'get' ? undefined : '{}' });
      const expected401 = route.auth !== 'public' || SELF_AUTHENTICATED.has(route.path);
      if ((response.status === 401) !== expected401) failures.push(`${route.method.toUpperCase()} ${route.path} answered ${response.status}`);
    }
    expect(failures).to.deep.equal([]);
  });
});

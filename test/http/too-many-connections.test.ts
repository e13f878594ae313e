import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import pino from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { startCore, type RunningCore } from '../../src/core/start.js';
import { createTestDatabase, dropTestDatabase, runOnServer } from '../support/database.js';

// PostgreSQL refusing new sessions (SQLSTATE 53300, "too many connections") is an outage like
// any other: 503 while it lasts, and the core recovers by itself. The core connects as a role of
// its own whose connection limit the test drops to zero, then ends the role's open sessions.
describe('database refusing connections', function () {
  this.timeout(60000);
  const role = `cdn_limited_${randomBytes(4).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  let databaseUrl: string;
  let core: RunningCore;

  before(async () => {
    databaseUrl = await createTestDatabase();
    await runOnServer(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
    await runOnServer(`ALTER DATABASE ${new URL(databaseUrl).pathname.slice(1)} OWNER TO ${role}`);
    const asRole = new URL(databaseUrl);
    asRole.username = role;
    asRole.password = password;
    core = await startCore(loadConfig({ DATABASE_URL: asRole.toString(), CDN_CORE_PORT: '0', CDN_LOG_LEVEL: 'silent', CDN_PUBLISH_ENABLED: 'false' }), pino({ level: 'silent' }));
  });
  after(async () => {
    await core?.stop();
    await dropTestDatabase(databaseUrl);
    await runOnServer(`DROP ROLE IF EXISTS ${role}`);
  });

  it('answers 503 while the database refuses connections (53300) and recovers when it accepts them again', async () => {
    expect((await fetch(`${core.url}/api/v1/domains`)).status).to.equal(200);
    await runOnServer(`ALTER ROLE ${role} CONNECTION LIMIT 0`);
    await runOnServer(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '${role}'`);

    const refused = await fetch(`${core.url}/api/v1/domains`);
    expect(refused.status).to.equal(503);
    expect(await refused.json()).to.deep.include({ error: 'database unavailable' });
    const write = await fetch(`${core.url}/api/v1/domains`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"domain":"refused.example"}' });
    expect(write.status).to.equal(503);

    await runOnServer(`ALTER ROLE ${role} CONNECTION LIMIT -1`);
    expect((await fetch(`${core.url}/api/v1/domains`)).status).to.equal(200);
  });
});

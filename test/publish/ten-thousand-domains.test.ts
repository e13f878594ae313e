import { expect } from 'chai';
import { loadConfig } from '../../src/config/load.js';
import { TestCore, type Json } from '../support/core.js';
import { eventually } from '../support/eventually.js';
import { insertOnboardDomains, onboardDomain } from '../support/onboard-domains.js';
import { readSnapshotBytes } from '../../src/publish/snapshot-store.js';

const TOKEN = 'ten-thousand-domains-token';
const DOMAINS = 10_000;
const MIB = 1024 * 1024;
/** The production limit before the issue #25 restatement: snapshots of this scale were refused by it. */
const OLD_PRODUCTION_LIMIT = 5 * MIB;

// Issue #25: 10,000 domains of bench:onboard's shape (8 records, 2 origins each), loaded with SQL,
// published by the background publisher of a core with production defaults.
describe('config snapshots: 10,000 domains publish with production defaults', function () {
  this.timeout(120_000);
  let core: TestCore;

  before(async () => {
    core = await TestCore.start({ CDN_ENV: 'production', CDN_PUBLISH_ENABLED: 'true', CDN_API_TOKEN: TOKEN });
    core.token = TOKEN;
    await insertOnboardDomains(core.core.connection.pool, DOMAINS);
  });
  after(async () => {
    await core?.stop();
  });

  it('publishes every domain in one version under CDN_EDGE_CONFIG_MAX_BYTES, with no publish warning', async () => {
    const { rows } = await core.core.connection.pool.query<{ id: string }>(`SELECT id FROM domains WHERE domain = $1`, [onboardDomain(42)]);
    // The SQL insert marks nothing dirty; an operator's next write does, and the publisher takes it all.
    await core.post(`/api/v1/domains/${rows[0].id}/dns/records`, { type: 'A', name: 'shop', content: '192.0.2.77', proxied: true }, 201);
    const state = await eventually(
      'the publisher to publish every change or fail',
      async () => {
        const row = await core.db.publishState.findUniqueOrThrow({ where: { id: 1 } });
        return row.last_error !== null || (row.active_version !== null && row.published_seq >= row.change_seq) ? row : undefined;
      },
      60_000,
    );
    expect(state.last_error, 'the publisher failed').to.equal(null);
    expect(state.publish_failures).to.equal(0);

    const snapshot = await core.db.configSnapshot.findUniqueOrThrow({ where: { version: state.active_version! }, select: { version: true, domain_count: true } });
    const body = (await readSnapshotBytes(core.db, snapshot.version))!;
    const limit = loadConfig({ CDN_ENV: 'production' }).edgeConfigMaxBytes;
    console.log(`      version ${snapshot.version}: ${snapshot.domain_count} domains, ${(body.length / MIB).toFixed(2)} MiB (limit ${(limit / MIB).toFixed(0)} MiB)`);
    expect(snapshot.domain_count).to.equal(DOMAINS);
    expect(body.length, 'the snapshot is at the issue\'s scale, past the old 5 MiB limit').to.be.above(OLD_PRODUCTION_LIMIT);
    expect(body.length, `under CDN_EDGE_CONFIG_MAX_BYTES (${limit})`).to.be.at.most(limit);
    expect(body.toString()).to.include('"shop.onboard-42.example"');

    const rollout = (await core.get(`/api/v1/config/rollout?version=${state.active_version}`)).data;
    expect(rollout.publish_error).to.equal(null);
    const warnings = (await core.get('/api/v1/overview/warnings')).data.warnings.map((warning: Json) => warning.code);
    expect(warnings).to.not.include.members(['publish_failing', 'config_not_published']);
  });
});

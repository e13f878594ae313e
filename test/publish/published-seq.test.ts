import { expect } from 'chai';
import { loadConfig } from '../../src/config/load.js';
import { publishOnce } from '../../src/publish/publisher.js';
import { TestCore } from '../support/core.js';
import { createSite } from '../support/edge-site.js';

const DEFAULTS = {
  cache: { caching_enabled: true, default_edge_ttl_seconds: 3600, browser_ttl_seconds: 14400, respect_origin_cache_control: true, query_string_mode: 'include', stale_while_revalidate_seconds: 0, stale_if_error_seconds: 0, development_mode: false, targeted_cache_control_header: null, strict_rfc9111: false },
  ssl: { mode: 'full', automatic: true, always_https: false, min_tls_version: '1.2', hsts_enabled: false, hsts_max_age: 31536000 },
};

// Which version publishes a write: each snapshot records the change_seq it covers (docs/snapshots.md, Rollout).
describe('the change_seq a snapshot covers', () => {
  let core: TestCore;
  const publish = () => publishOnce(core.db, core.core.connection.pool, loadConfig({ DATABASE_URL: core.databaseUrl }), DEFAULTS);
  const changeOf = async (response: Response) => {
    expect(response.status).to.equal(201);
    return response.headers.get('x-cdn-config-change')!;
  };

  before(async () => {
    core = await TestCore.start();
  });
  after(async () => {
    await core.stop();
  });

  it('stores the change_seq read before the build with a new version, and moves the active one’s when the content is unchanged', async () => {
    await createSite(core, 'seq.example', 8080);
    const published = await publish();
    expect(published.outcome).to.equal('published');
    const state = await core.db.publishState.findUniqueOrThrow({ where: { id: 1 } });
    const stored = await core.db.configSnapshot.findUniqueOrThrow({ where: { version: published.version! } });
    expect(stored.published_seq).to.equal(state.change_seq);

    // A domain waiting for its delegation is not in the snapshot: its write changes nothing edges serve.
    const change = await changeOf(await fetch(`${core.url}/api/v1/domains`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ domain: 'pending-seq.example' }) }));
    expect((await core.get(`/api/v1/config/rollout?change=${change}`)).data).to.include({ status: 'pending', version: null });
    expect((await publish()).outcome).to.equal('unchanged');
    expect((await core.db.configSnapshot.findUniqueOrThrow({ where: { version: published.version! } })).published_seq).to.equal(BigInt(change));
    expect((await core.get(`/api/v1/config/rollout?change=${change}`)).data).to.include({ version: published.version, status: 'converged' });
  });
});

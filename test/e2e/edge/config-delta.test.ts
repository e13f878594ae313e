import { expect } from 'chai';
import { TestCore } from '../../support/core.js';
import { EdgeProcess } from '../../support/edge-process.js';
import { CoreProxy, type SeenRequest } from '../../edge/agent/core-proxy.js';
import { rawRequest } from '../../support/raw-http.js';

const TOKEN = 'cdnedge_e2e-config-delta-token-0123456789';
/** 2,000 by default to keep the suite quick; CDN_TEST_DELTA_DOMAINS=10000 measures the scale. */
const DOMAINS = Number(process.env.CDN_TEST_DELTA_DOMAINS ?? 2000);
const KB = 1024;

// One real core, one real `cdn edge`, a proxy between them that counts the config answers' bytes
// on the wire (gzip, as the edge asks for it).
describe('cdn edge follows changes through deltas that cost bytes proportional to the change', function () {
  this.timeout(180_000);
  let core: TestCore;
  let proxy: CoreProxy;
  let edge: EdgeProcess | undefined;
  let domainIds: string[];
  let fullBytes: number;

  // The config answers that arrived after `answered` was taken: a long-poll held since before then counts too.
  const answeredSet = () => new Set(proxy.seen.filter((seen) => seen.answerBytes !== undefined));
  const configBytesAfter = (answered: Set<SeenRequest>) =>
    proxy.seen.filter((seen) => seen.path.startsWith('/api/v1/edge/config') && !answered.has(seen)).reduce((sum, seen) => sum + (seen.answerBytes ?? 0), 0);
  const apexOf = async (id: string) => (await core.core.connection.pool.query<{ domain: string }>('SELECT domain FROM domains WHERE id = $1', [id])).rows[0].domain;
  // Whether the edge serves `host` (any answer but its "not served by this CDN edge" page), asked on four new connections, which the cluster spreads over its workers.
  const served = async (host: string) => {
    const answers = await Promise.all([0, 1, 2, 3].map(() => rawRequest({ port: edge!.port, host, path: '/', agent: false })));
    const notServed = answers.map((answer) => answer.status === 404 && answer.text.includes('not served by this CDN edge'));
    expect(new Set(notServed).size, 'every worker answers alike').to.equal(1);
    return !notServed[0];
  };
  const publish = async () => (await core.post('/api/v1/config/snapshots/rebuild', undefined)).data.version as number;
  const activeChecksum = async (version: number) => (await core.get('/api/v1/config/snapshots?limit=10')).data.find((row: { version: number }) => row.version === version).checksum;
  // Publishes whatever `change` did and returns the config bytes the edge received until it served the new version.
  const bytesFor = async (change: () => Promise<unknown>) => {
    const answered = answeredSet();
    await change();
    const version = await publish();
    const ready = await edge!.waitReady(version);
    expect(ready.config.checksum).to.equal(await activeChecksum(version));
    return configBytesAfter(answered);
  };

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN, CDN_EDGE_CONFIG_MAX_BYTES: String(64 * 1024 * 1024), CDN_CONFIG_SNAPSHOT_KEEP_LAST: '2' });
    const pool = core.core.connection.pool;
    await pool.query(`INSERT INTO domains (domain, name, zone_name, status, updated_at) SELECT 'delta-' || n || '.example', 'd', 'delta-' || n || '.example', 'active', now() FROM generate_series(1, $1) n`, [DOMAINS]);
    for (const name of ['@', 'www', 'api', 'static']) {
      await pool.query(`INSERT INTO dns_records (domain_id, type, name, content, content_digest, proxied, updated_at) SELECT id, 'A', $1, '192.0.2.10', 'c', true, now() FROM domains`, [name]);
    }
    await pool.query(`INSERT INTO origins (domain_id, host, port, role, updated_at) SELECT id, 'origin-a.' || domain, 443, 'primary', now() FROM domains`);
    await pool.query(`INSERT INTO origins (domain_id, host, port, role, updated_at) SELECT id, 'origin-b.' || domain, 443, 'backup', now() FROM domains`);
    domainIds = (await pool.query<{ id: string }>(`SELECT id FROM domains ORDER BY domain`)).rows.map((row) => row.id);
    const version = await publish();
    proxy = await CoreProxy.start(core.url);
    edge = await EdgeProcess.start({ coreUrl: proxy.url, token: TOKEN, workers: 2, env: { CDN_EDGE_CONFIG_MAX_BYTES: String(64 * 1024 * 1024) } });
    await edge.waitReady(version);
    fullBytes = configBytesAfter(new Set());
  });
  after(async () => {
    await edge?.stop();
    await proxy?.close();
    await core?.stop();
  });

  it('downloads a one-record change as a delta of a few KB, not the full snapshot', async () => {
    const shop = `shop.${await apexOf(domainIds[17])}`;
    expect(await served(shop)).to.equal(false);
    const bytes = await bytesFor(() => core.post(`/api/v1/domains/${domainIds[17]}/dns/records`, { type: 'A', name: 'shop', content: '192.0.2.77', proxied: true }, 201));
    // Every worker compiled the change from its active version, and serves the new name.
    expect(await served(shop)).to.equal(true);
    console.log(`      ${DOMAINS} domains: full snapshot ${(fullBytes / KB).toFixed(1)} KB gzipped; one-record change ${(bytes / KB).toFixed(2)} KB`);
    expect(bytes).to.be.above(0).and.below(20 * KB);
    expect(bytes).to.be.below(fullBytes / 20);
  });

  it('downloads a purge and an origin health flip as deltas of a few KB', async () => {
    const purge = await bytesFor(() => core.post(`/api/v1/domains/${domainIds[5]}/cache/purge`, { scope: 'prefix', value: '/assets/' }, 201));
    const flip = await bytesFor(() => core.core.connection.pool.query(`UPDATE origins SET health_status = 'unhealthy' WHERE domain_id = $1 AND role = 'primary'`, [domainIds[9]]));
    console.log(`      purge ${(purge / KB).toFixed(2)} KB; origin health flip ${(flip / KB).toFixed(2)} KB`);
    expect(purge).to.be.above(0).and.below(20 * KB);
    expect(flip).to.be.above(0).and.below(20 * KB);
  });

  it('downloads the full snapshot after a restart on a version the core no longer keeps', async () => {
    await edge!.stop({ keepData: true });
    const dataDir = edge!.dataDir;
    for (let n = 0; n < 4; n++) {
      await core.post(`/api/v1/domains/${domainIds[100 + n]}/dns/records`, { type: 'A', name: `gone-${n}`, content: '192.0.2.78', proxied: true }, 201);
      await publish();
    }
    const version = await publish();
    const mark = proxy.seen.length;
    const answered = answeredSet();
    edge = await EdgeProcess.start({ coreUrl: proxy.url, token: TOKEN, workers: 1, dataDir, env: { CDN_EDGE_CONFIG_MAX_BYTES: String(64 * 1024 * 1024) } });
    const ready = await edge.waitReady(version);
    expect(ready.config.checksum).to.equal(await activeChecksum(version));
    const pulls = proxy.seen.slice(mark).filter((seen) => seen.path.startsWith('/api/v1/edge/config'));
    expect(pulls[0].path).to.match(/since=\d+/);
    expect(configBytesAfter(answered)).to.be.above(fullBytes / 2);
  });
});

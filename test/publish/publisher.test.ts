import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import { loadConfig } from '../../src/config/load.js';
import { ActiveSnapshotCache, publishOnce } from '../../src/publish/publisher.js';
import { readStoredLayout } from '../../src/publish/snapshot-store.js';
import { registerPool } from '../../src/db/sql.js';
import { signedHeaders } from '../../src/shared/signing.js';
import { TestCore, type Json } from '../support/core.js';
import { eventually } from '../support/eventually.js';

const EDGE_TOKEN = 'cdnedge_publisher-tests-token-0123456789';

describe('config snapshots: publishing and the edge config pull', function () {
  this.timeout(60000);
  let core: TestCore;
  const defaults = { cache: { caching_enabled: true, default_edge_ttl_seconds: 3600, browser_ttl_seconds: 14400, respect_origin_cache_control: true, query_string_mode: 'include', stale_while_revalidate_seconds: 0, stale_if_error_seconds: 0, development_mode: false, targeted_cache_control_header: null, strict_rfc9111: false }, ssl: { mode: 'full', automatic: true, always_https: false, min_tls_version: '1.2', hsts_enabled: false, hsts_max_age: 31536000 } };
  before(async () => {
    core = await TestCore.start({ CDN_PUBLISH_ENABLED: 'true', CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN, CDN_CONFIG_SNAPSHOT_KEEP_LAST: '2' });
  });
  after(async () => {
    await core.stop();
  });

  const versions = async () => (await core.get('/api/v1/config/snapshots')).data.map((row: Json) => row.version);
  const pull = async (query = '', encoding?: string) => {
    const path = `/api/v1/edge/config${query}`;
    const headers = signedHeaders({ token: EDGE_TOKEN, edgeId: 'edge-1', method: 'GET', pathWithQuery: path });
    return fetch(`${core.url}${path}`, { headers: { ...headers, ...(encoding ? { 'accept-encoding': encoding } : {}) } });
  };
  const activeVersion = async () => (await core.db.publishState.findUniqueOrThrow({ where: { id: 1 } })).active_version;

  it('publishes a first snapshot and serves it to a signed edge, gzip-compressed when accepted', async () => {
    const domain = await core.createDomain('snap.example', { origin_shield_header_name: 'X-Shield', origin_shield_secret: 'shield-secret-1' });
    await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true });
    await core.post(`/api/v1/domains/${domain.id}/origins`, { host: 'origin.snap.example' }, 201);
    const version = await eventually('a published snapshot containing the domain', async () => {
      const answer = (await (await pull()).json()) as Json;
      return answer.data.snapshot?.domains?.some((item: Json) => item.origins.length === 1) ? answer.data.version : undefined;
    });
    const answer = (await (await pull()).json()) as Json;
    expect(answer.data.checksum).to.match(/^[0-9a-f]{64}$/);
    const item = answer.data.snapshot.domains[0];
    expect(item.domain).to.equal('snap.example');
    expect(item.origin_shield).to.deep.equal({ header_name: 'X-Shield', secret: 'shield-secret-1' });
    const compressed = await pull('', 'gzip');
    expect(compressed.headers.get('content-encoding')).to.equal('gzip');
    expect(((await compressed.json()) as Json).data.version).to.equal(version); // fetch decompresses transparently
    expect((await (await pull(`?if_version=${version}`)).json()) as Json).to.deep.include({ data: { version, checksum: answer.data.checksum, not_modified: true } });
  });

  it('publishes a burst of 100 changes as one or a few versions', async () => {
    const before = await activeVersion();
    const domain = (await core.get('/api/v1/domains')).data[0];
    await Promise.all(Array.from({ length: 100 }, (_, i) => core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: `burst${i}`, content: '192.0.2.1', proxied: true }, 201)));
    await eventually('the burst published', async () => {
      const state = await core.db.publishState.findUniqueOrThrow({ where: { id: 1 } });
      return state.change_seq <= state.published_seq ? true : undefined;
    });
    const after = await activeVersion();
    expect(after! - before!).to.be.within(1, 4);
    const snapshot = ((await (await pull()).json()) as Json).data.snapshot;
    expect(snapshot.domains[0].hostnames.filter((name: string) => name.startsWith('burst'))).to.have.length(100);
    expect((await versions()).length).to.be.at.most(3);
  });

  it('loads a new active version once for all the pulls that arrive together', async () => {
    const version = (await activeVersion())!;
    let queries = 0;
    const pool = core.core.connection.pool;
    const counting = {} as typeof core.db;
    registerPool(counting, { query: (text: string, values?: unknown[]) => (queries++, pool.query(text, values)) } as unknown as typeof pool);
    await new ActiveSnapshotCache().get(counting, version);
    const oneLoad = queries;
    queries = 0;
    const cache = new ActiveSnapshotCache();
    const served = await Promise.all(Array.from({ length: 20 }, () => cache.get(counting, version)));
    expect(oneLoad).to.be.above(0);
    expect(queries, 'the queries of one load').to.equal(oneLoad);
    expect(new Set(served.map((snapshot) => snapshot?.version))).to.deep.equal(new Set([version]));
    expect(JSON.parse(gunzipSync(await served[0]!.gzip()).toString()).data.version).to.equal(version);
  });

  it('serves a version it was told of while storing it without reading it back, and the same answer a read gives', async () => {
    const version = (await activeVersion())!;
    const row = await core.db.configSnapshot.findUniqueOrThrow({ where: { version }, select: { checksum: true, created_at: true } });
    const { layout } = (await readStoredLayout(core.db, version))!;
    const primed = new ActiveSnapshotCache();
    primed.prime({ version, checksum: row.checksum, createdAt: row.created_at, layout });
    const unreadable = {} as typeof core.db;
    const served = await primed.get(unreadable, version);
    expect(served!.json().equals((await new ActiveSnapshotCache().get(core.db, version))!.json())).to.equal(true);
  });

  it('deletes the pieces only pruned versions named once nothing is left to publish, and every version kept reads back whole', async () => {
    const domain = (await core.get('/api/v1/domains')).data[0];
    const pool = core.core.connection.pool;
    const orphans = async () => Number((await pool.query(`
      SELECT count(*) AS n FROM config_snapshot_pieces p WHERE NOT EXISTS (
        SELECT 1 FROM config_snapshots s, generate_series(1, octet_length(s.piece_digests), 32) AS at WHERE substring(s.piece_digests FROM at FOR 32) = p.digest)`)).rows[0].n);
    for (let change = 0; change < 4; change++) {
      const before = await activeVersion();
      await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: `pieces${change}`, content: '192.0.2.1', proxied: true }, 201);
      await eventually('the change published', async () => ((await activeVersion()) !== before ? true : undefined));
    }
    await eventually('the unused pieces deleted', async () => ((await orphans()) === 0 ? true : undefined), 10_000);
    const kept = await versions();
    expect(kept.length).to.be.at.most(3);
    for (const version of kept) expect((await readStoredLayout(core.db, version))?.layout.pieces.length, `version ${version}`).to.be.above(0);
  });

  it('lets only one of two concurrent publishers store a version', async () => {
    await core.post('/api/v1/domains', { domain: 'race.example' }, 201);
    const config = loadConfig({ DATABASE_URL: core.databaseUrl });
    const before = await activeVersion();
    const results = await Promise.all([publishOnce(core.db, core.core.connection.pool, config, defaults), publishOnce(core.db, core.core.connection.pool, config, defaults)]);
    expect(results.filter((result) => result.outcome === 'published').length).to.be.at.most(1);
    expect((await activeVersion())! - before!).to.be.at.most(1);
  });

  it('refuses an oversized snapshot, keeps the old one active and says so in the overview', async () => {
    const before = await activeVersion();
    await core.createDomain('big.example');
    // Another challenge difficulty changes the content, so this is not the active snapshot again.
    const tiny = loadConfig({ DATABASE_URL: core.databaseUrl, CDN_EDGE_CONFIG_MAX_BYTES: '1024', CDN_EDGE_CHALLENGE_DIFFICULTY: '5' });
    const result = await publishOnce(core.db, core.core.connection.pool, tiny, defaults, { force: true });
    expect(result.outcome).to.equal('too_large');
    expect(result.detail).to.match(/exceeds CDN_EDGE_CONFIG_MAX_BYTES \(1024\)/);
    expect(await activeVersion()).to.equal(before);
    const warnings = (await core.get('/api/v1/overview/warnings')).data.warnings.map((warning: Json) => warning.code);
    expect(warnings).to.include('publish_failing');
  });

  it('rebuilds on demand, which ends a publish failure even when the content is already active, and answers 401 to an unsigned pull', async () => {
    const rebuilt = (await core.post('/api/v1/config/snapshots/rebuild', undefined)).data;
    expect(rebuilt.outcome).to.be.oneOf(['published', 'unchanged']);
    expect(rebuilt.version).to.equal(await activeVersion());
    const warnings = (await core.get('/api/v1/overview/warnings')).data.warnings.map((warning: Json) => warning.code);
    expect(warnings).to.not.include('publish_failing');
    expect((await fetch(`${core.url}/api/v1/edge/config`)).status).to.equal(401);
    expect(((await (await pull('?if_version=abc')).json()) as Json).field).to.equal('if_version');
  });
});

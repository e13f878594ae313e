import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import pino from 'pino';
import { ConfigSync, type SnapshotSource } from '../../../src/edge/agent/config-sync.js';
import { createCoreClient, type CoreClient } from '../../../src/edge/agent/core-client.js';
import type { PulledSnapshot } from '../../../src/edge/agent/snapshot-check.js';
import { lastKnownGoodPath } from '../../../src/edge/agent/snapshot-store.js';
import { TestCore } from '../../support/core.js';
import { CoreProxy, rewriteSnapshot } from './core-proxy.js';

const EDGE_TOKEN = 'cdnedge_agent-config-sync-tests-0123456789';
const logger = pino({ level: 'silent' });

describe('edge agent: config sync against a real core', () => {
  let core: TestCore;
  let proxy: CoreProxy;
  let client: CoreClient;
  let dataDir: string;
  const syncs: ConfigSync[] = [];

  const publishDomain = async (apex: string): Promise<number> => {
    const domain = await core.createDomain(apex);
    await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true });
    await core.post(`/api/v1/domains/${domain.id}/origins`, { host: `origin.${apex}` }, 201);
    return (await core.post('/api/v1/config/snapshots/rebuild', undefined)).data.version;
  };
  const newSync = (maxBytes = 1024 * 1024, syncClient = client) => {
    const sync = new ConfigSync({ client: syncClient, dataDir, maxBytes, refreshSeconds: 3600, logger });
    syncs.push(sync);
    return sync;
  };
  const collect = (sync: ConfigSync) => {
    const seen: { pulled: PulledSnapshot; source: SnapshotSource }[] = [];
    sync.on('snapshot', (pulled, source) => seen.push({ pulled, source }));
    return seen;
  };

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN });
    proxy = await CoreProxy.start(core.url);
    client = createCoreClient({ coreUrl: proxy.url, edgeId: 'edge-sync-1', token: EDGE_TOKEN, timeoutMs: 5000 });
  });
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'edge-agent-'));
    proxy.mode = 'pass';
    proxy.rewriteConfig = undefined;
  });
  afterEach(async () => {
    for (const sync of syncs.splice(0)) {
      sync.stop();
      await sync.lastKnownGoodSaved();
    }
    await rm(dataDir, { recursive: true, force: true });
  });
  after(async () => {
    client.close();
    await proxy.close();
    await core.stop();
  });

  it('answers none before anything is published, then activates a published snapshot', async () => {
    const sync = newSync();
    expect(await sync.pullNow()).to.deep.equal({ outcome: 'none', version: null, detail: 'no snapshot has been published yet' });
    const version = await publishDomain('sync-one.example');
    const seen = collect(sync);
    expect(await sync.pullNow()).to.deep.equal({ outcome: 'updated', version });
    expect(seen).to.have.length(1);
    expect(seen[0].source).to.equal('core');
    expect(seen[0].pulled.snapshot.domains.map((domain) => domain.domain)).to.include('sync-one.example');
    expect(sync.status()).to.include({ version, source: 'core', reloads: 1, reload_failures: 0, pull_failures: 0, core_version: version, behind_since: null, stale_seconds: 0 });
    expect(await sync.pullNow()).to.deep.equal({ outcome: 'unchanged', version });
    expect(proxy.to('/api/v1/edge/config').at(-1)!.path).to.equal(`/api/v1/edge/config?if_version=${version}&since=${version}`);
  });

  it('saves the last-known-good atomically once it is announced, with the snapshot bytes verbatim', async () => {
    const sync = newSync();
    let announced: PulledSnapshot | undefined;
    let onDiskWhenAnnounced: boolean | undefined;
    sync.on('snapshot', (pulled) => {
      announced = pulled;
      onDiskWhenAnnounced = existsSync(lastKnownGoodPath(dataDir));
    });
    await sync.pullNow();
    const pulled = sync.current()!;
    expect(announced).to.equal(pulled);
    expect(onDiskWhenAnnounced, 'served before its copy is written').to.equal(false);
    await sync.lastKnownGoodSaved();
    const file = await readFile(lastKnownGoodPath(dataDir));
    expect(file.includes(Buffer.concat(pulled.chunks))).to.equal(true);
    expect(JSON.parse(file.toString()).data).to.include({ version: pulled.version, checksum: pulled.checksum });
    expect(await readdir(path.dirname(lastKnownGoodPath(dataDir)))).to.deep.equal(['last-known-good.json']);
  });

  it('serves a new version without waiting for its last-known-good copy, and reports a copy that could not be saved', async () => {
    const sync = newSync();
    await sync.pullNow();
    await sync.lastKnownGoodSaved();
    // A folder where the file goes: the rename over it fails (even for root), so the save fails.
    await rm(lastKnownGoodPath(dataDir));
    await mkdir(lastKnownGoodPath(dataDir));
    const second = await publishDomain('sync-unsaved.example');
    expect(await sync.pullNow()).to.deep.equal({ outcome: 'updated', version: second });
    expect(sync.status().version).to.equal(second);
    await sync.lastKnownGoodSaved();
    expect(sync.status().last_save_error).to.match(/EISDIR|is a directory/i);
    await rm(lastKnownGoodPath(dataDir), { recursive: true });
    const third = await publishDomain('sync-saved.example');
    expect(await sync.pullNow()).to.deep.equal({ outcome: 'updated', version: third });
    await sync.lastKnownGoodSaved();
    expect(sync.status().last_save_error).to.equal(null);
    expect(JSON.parse((await readFile(lastKnownGoodPath(dataDir))).toString()).data.version).to.equal(third);
  });

  it('downloads the full snapshot when the core holds other content under the version it serves (a restored database)', async () => {
    const sync = newSync();
    // The first download is rewritten: the edge serves version N with content the core does not hold under N.
    proxy.rewriteConfig = (body) => rewriteSnapshot(body, (text) => text.replace('"purges":[', '"purges": ['));
    const first = await sync.pullNow();
    const held = sync.current()!;
    proxy.rewriteConfig = undefined;
    expect(first.outcome).to.equal('updated');
    expect(await sync.pullNow()).to.deep.equal({ outcome: 'updated', version: held.version });
    expect(sync.current()!.checksum).to.not.equal(held.checksum);
    expect(proxy.to('/api/v1/edge/config').at(-1)!.path).to.equal('/api/v1/edge/config');
    expect(await sync.pullNow()).to.deep.equal({ outcome: 'unchanged', version: held.version });
  });

  it('pulls a new version published after the first, on pullNow', async () => {
    const sync = newSync();
    const first = (await sync.pullNow()).version;
    const second = await publishDomain('sync-two.example');
    expect(second).to.be.greaterThan(first!);
    expect(await sync.pullNow()).to.deep.equal({ outcome: 'updated', version: second });
    expect(sync.status()).to.include({ version: second, reloads: 2 });
  });

  it('serves the last-known-good from disk after a restart while the core is down', async () => {
    const first = newSync();
    await first.pullNow();
    const pulled = first.current()!;
    first.stop();
    await first.lastKnownGoodSaved();

    proxy.mode = 'down';
    const restarted = newSync();
    const seen = collect(restarted);
    await restarted.start();
    expect(seen.map((item) => [item.source, item.pulled.version, item.pulled.checksum])).to.deep.equal([['disk', pulled.version, pulled.checksum]]);
    const outcome = await restarted.pullNow();
    expect(outcome.outcome).to.equal('unreachable');
    expect(outcome.version).to.equal(pulled.version);
    const status = restarted.status();
    expect(status).to.include({ version: pulled.version, source: 'disk', reload_failures: 0 });
    expect(status.pull_failures).to.be.at.least(1);
    expect(status.last_pull_error).to.match(/^core unreachable: /);
    expect(status.stale_seconds).to.equal(null);
  });

  it('ignores a truncated last-known-good file, saying why, and pulls from the core', async () => {
    const first = newSync();
    await first.pullNow();
    first.stop();
    await first.lastKnownGoodSaved();
    await truncate(lastKnownGoodPath(dataDir), 100);

    const restarted = newSync();
    const seen = collect(restarted);
    await restarted.start();
    expect(seen).to.have.length(0);
    expect(restarted.status().last_reload_error).to.match(/last-known-good\.json: config answer/);
    expect(restarted.status().reload_failures).to.equal(1);
    expect((await restarted.pullNow()).outcome).to.be.oneOf(['updated', 'unchanged']);
    expect(restarted.current()).to.not.equal(undefined);
  });

  it('ignores a last-known-good file whose snapshot no longer matches its checksum', async () => {
    const first = newSync();
    await first.pullNow();
    first.stop();
    await first.lastKnownGoodSaved();
    const file = await readFile(lastKnownGoodPath(dataDir));
    await writeFile(lastKnownGoodPath(dataDir), Buffer.from(file.toString().replace('"purges":[', '"purges": [')));
    proxy.mode = 'down';
    const restarted = newSync();
    await restarted.start();
    expect(restarted.current()).to.equal(undefined);
    expect(restarted.status().last_reload_error).to.match(/checksum mismatch$/);
  });

  const REFUSALS: [string, (body: Buffer) => Buffer, RegExp][] = [
    ['a checksum mismatch', (body) => Buffer.from(body.toString().replace(/"checksum":"[0-9a-f]{64}"/, `"checksum":"${'0'.repeat(64)}"`)), /checksum mismatch$/],
    ['an unsupported schema_version', (body) => rewriteSnapshot(body, (text) => text.replace('"schema_version":2', '"schema_version":3')), /unsupported schema_version 3/],
    ['a schema violation', (body) => rewriteSnapshot(body, (text) => text.replace(/"challenge_difficulty":\d+/, '"challenge_difficulty":"hard"')), /schema: \/edge\/challenge_difficulty must be integer/],
  ];
  for (const [what, rewrite, reason] of REFUSALS) {
    it(`refuses ${what}, keeps the active snapshot, counts it once and does not download it again`, async () => {
      const sync = newSync();
      await sync.pullNow();
      const active = sync.current()!;
      const bad = await publishDomain(`refused-${Math.random().toString(36).slice(2, 8)}.example`);
      proxy.rewriteConfig = rewrite;
      const seen = collect(sync);
      const outcomes = [await sync.pullNow(), await sync.pullNow(), await sync.pullNow()];
      expect(outcomes.map((outcome) => [outcome.outcome, outcome.version])).to.deep.equal(Array(3).fill(['invalid', active.version]));
      expect(outcomes[2].detail).to.match(reason);
      expect(seen).to.have.length(0);
      expect(sync.current()).to.equal(active);
      const status = sync.status();
      expect(status).to.include({ version: active.version, reload_failures: 1, core_version: bad });
      expect(status.last_reload_error).to.match(reason);
      expect(status.behind_since).to.be.a('number');
      expect(status.stale_seconds).to.be.within(0, 5);
      // After the refusal the edge asks about the refused version (not_modified) instead of downloading it every poll.
      expect(proxy.to('/api/v1/edge/config').slice(-2).map((seen) => seen.path)).to.deep.equal(Array(2).fill(`/api/v1/edge/config?if_version=${bad}&since=${active.version}`));

      proxy.rewriteConfig = undefined;
      const good = await publishDomain(`accepted-${Math.random().toString(36).slice(2, 8)}.example`);
      expect(await sync.pullNow()).to.deep.equal({ outcome: 'updated', version: good });
      expect(sync.status()).to.include({ version: good, behind_since: null });
    });
  }

  it('refuses a snapshot larger than CDN_EDGE_CONFIG_MAX_BYTES and keeps the active one', async () => {
    const sync = newSync();
    await sync.pullNow();
    const active = sync.current()!;
    const small = newSync(active.size);
    expect((await small.pullNow()).outcome).to.equal('updated');
    await publishDomain('oversized.example');
    const bad = await publishDomain('oversized-more.example');
    const outcomes = [await small.pullNow(), await small.pullNow()];
    expect(outcomes.map((outcome) => outcome.outcome)).to.deep.equal(['invalid', 'invalid']);
    expect(outcomes[1].detail).to.equal(`version ${bad}: config answer of more than ${active.size + 1024} bytes: the snapshot exceeds CDN_EDGE_CONFIG_MAX_BYTES (${active.size})`);
    expect(small.status()).to.include({ version: active.version, reload_failures: 1, core_version: bad });
    expect(proxy.to('/api/v1/edge/config').at(-1)!.path).to.equal(`/api/v1/edge/config?if_version=${bad}&since=${active.version}`);
  });

  it('counts a refused answer from the core (a revoked or unknown token) as a pull failure, not a reload failure', async () => {
    const stranger = createCoreClient({ coreUrl: proxy.url, edgeId: 'edge-sync-1', token: 'cdnedge_not-a-known-token', timeoutMs: 5000 });
    try {
      const sync = newSync(1024 * 1024, stranger);
      const outcome = await sync.pullNow();
      expect(outcome.outcome).to.equal('unreachable');
      expect(outcome.detail).to.equal('core answered 401 edge authentication failed: unknown edge token');
      expect(sync.status()).to.include({ pull_failures: 1, reload_failures: 0 });
    } finally {
      stranger.close();
    }
  });

  it('joins a pull already in flight instead of starting a second one', async () => {
    const sync = newSync();
    const before = proxy.to('/api/v1/edge/config').length;
    const [a, b] = await Promise.all([sync.pullNow(), sync.pullNow()]);
    expect(a).to.equal(b);
    expect(proxy.to('/api/v1/edge/config').length).to.equal(before + 1);
  });

  it('polls every refreshSeconds once started', async () => {
    const sync = new ConfigSync({ client, dataDir, maxBytes: 1024 * 1024, refreshSeconds: 0.1, logger });
    syncs.push(sync);
    const before = proxy.to('/api/v1/edge/config').length;
    await sync.start();
    await new Promise((resolve) => setTimeout(resolve, 450));
    sync.stop();
    expect(proxy.to('/api/v1/edge/config').length - before).to.be.within(3, 6);
  });
});

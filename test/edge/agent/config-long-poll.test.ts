import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import pino from 'pino';
import { ConfigSync } from '../../../src/edge/agent/config-sync.js';
import { createCoreClient, type CoreClient } from '../../../src/edge/agent/core-client.js';
import { eventually } from '../../support/eventually.js';
import { TestCore } from '../../support/core.js';
import { CoreProxy } from './core-proxy.js';

const EDGE_TOKEN = 'cdnedge_agent-long-poll-tests-0123456789';
const logger = pino({ level: 'silent' });
const CONFIG = '/api/v1/edge/config';

describe('edge agent: config long-poll against a real core', () => {
  let core: TestCore;
  let proxy: CoreProxy;
  let client: CoreClient;
  let dataDir: string;
  let domainId: string;
  let origins = 0;
  const syncs: ConfigSync[] = [];

  const publish = async (): Promise<number> => {
    origins++;
    await core.post(`/api/v1/domains/${domainId}/origins`, { host: `origin${origins}.long-poll-agent.example`, role: 'backup' }, 201);
    return (await core.post('/api/v1/config/snapshots/rebuild', undefined)).data.version;
  };
  const startSync = async (refreshSeconds: number) => {
    const sync = new ConfigSync({ client, dataDir, maxBytes: 1024 * 1024, refreshSeconds, waitSeconds: 30, logger });
    syncs.push(sync);
    await sync.start();
    return sync;
  };

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN });
    domainId = (await core.createDomain('long-poll-agent.example')).id;
    await core.post(`/api/v1/domains/${domainId}/activate`, { override: true });
    proxy = await CoreProxy.start(core.url);
    client = createCoreClient({ coreUrl: proxy.url, edgeId: 'edge-long-poll-1', token: EDGE_TOKEN, timeoutMs: 5000 });
  });
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'edge-long-poll-'));
    proxy.answer = undefined;
  });
  afterEach(async () => {
    for (const sync of syncs.splice(0)) sync.stop();
    await rm(dataDir, { recursive: true, force: true });
  });
  after(async () => {
    client.close();
    await proxy.close();
    await core.stop();
  });

  it('keeps one request open and activates a version published meanwhile at once, polling only every hour', async () => {
    const first = await publish();
    const sync = await startSync(3600);
    await eventually('the first version', async () => (sync.current()?.version === first ? true : undefined), 5000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const sent = proxy.to(CONFIG).length;
    expect(proxy.to(CONFIG).at(-1)!.path).to.equal(`${CONFIG}?if_version=${first}&since=${first}&wait=30`);
    const second = await publish();
    const published = Date.now();
    await eventually('the pushed version', async () => (sync.current()?.version === second ? true : undefined), 1000);
    expect(Date.now() - published).to.be.below(500);
    // The answered long-poll was re-issued at once, and that is all.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(proxy.to(CONFIG).length - sent).to.equal(1);
    expect(proxy.to(CONFIG).at(-1)!.path).to.equal(`${CONFIG}?if_version=${second}&since=${second}&wait=30`);
  });

  it('falls back to polling every refreshSeconds against a core that answers without holding', async () => {
    const version = await publish();
    proxy.answer = (seen) => (seen.path.startsWith(CONFIG) ? { status: 200, body: { data: { version, checksum: 'x', not_modified: true } } } : undefined);
    const before = proxy.to(CONFIG).length;
    await startSync(0.2);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(proxy.to(CONFIG).length - before).to.be.within(4, 7);
    expect(proxy.to(CONFIG).at(-1)!.path).to.equal(`${CONFIG}?wait=30`);
  });
});

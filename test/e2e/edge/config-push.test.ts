import { expect } from 'chai';
import pino from 'pino';
import { loadConfig } from '../../../src/config/load.js';
import { startCore, type RunningCore } from '../../../src/core/start.js';
import { TestCore, type Json } from '../../support/core.js';
import { dropTestDatabase } from '../../support/database.js';
import { EdgeProcess } from '../../support/edge-process.js';
import { createSite, TestOrigin } from '../../support/edge-site.js';

const TOKEN = 'cdnedge_e2e-config-push-token-0123456789ab';

// A real core (real PostgreSQL) and a real `cdn edge` polling only every 60 s: what reaches the
// edge sooner came by the long-poll (push).
describe('cdn edge learns of a new config version by push (long-poll)', function () {
  this.timeout(90000);
  let core: TestCore;
  let restarted: RunningCore | undefined;
  let origin: TestOrigin;
  let edge: EdgeProcess;
  let site: Json;
  let changes = 0;

  /** Changes the config and publishes it through `url`'s API; resolves when the rebuild answered, with the version. */
  const publishChange = async (url = core.url): Promise<number> => {
    changes++;
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(response.status, `${path}: ${await response.clone().text()}`).to.be.oneOf([200, 201]);
      return (await response.json()) as Json;
    };
    await post(`/api/v1/domains/${site.id}/headers`, { name: `push ${changes}`, header_name: `x-push-${changes}`, value: 'yes' });
    return (await post('/api/v1/config/snapshots/rebuild', undefined)).data.version;
  };

  /** Milliseconds from now until the edge's /ready reports `version` (checked every 5 ms). */
  const delayUntilServed = async (version: number, timeoutMs: number): Promise<number> => {
    const started = Date.now();
    for (;;) {
      const ready = await fetch(`${edge.url}/ready`).then((response) => response.json() as Promise<Json>, () => undefined);
      if (ready?.config?.version >= version) return Date.now() - started;
      if (Date.now() - started > timeoutMs) throw new Error(`the edge did not serve version ${version} within ${timeoutMs} ms; /ready: ${JSON.stringify(ready?.config)}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN });
    origin = await TestOrigin.start('primary');
    site = await createSite(core, 'push.example', origin.port);
    const first = await publishChange();
    edge = await EdgeProcess.start({ coreUrl: core.url, token: TOKEN, workers: 1, env: { CDN_EDGE_CONFIG_REFRESH_SECONDS: '60' } });
    await edge.waitReady(first);
  });
  after(async () => {
    await edge?.stop();
    await origin?.stop();
    if (restarted) {
      await restarted.stop();
      await dropTestDatabase(core.databaseUrl);
    } else await core?.stop();
  });

  it('serves each new version well within a second of its publish, with polling every 60 s', async () => {
    const delays: number[] = [];
    for (let round = 0; round < 5; round++) {
      const version = await publishChange();
      delays.push(await delayUntilServed(version, 5000));
    }
    expect(Math.max(...delays), `delays after the publish answered: ${delays.join(', ')} ms`).to.be.below(1000);
  });

  it('keeps its long-poll across a core restart on the same port: a version published after it arrives by push', async () => {
    const port = core.core.port;
    await core.core.stop();
    const config = loadConfig({ CDN_CORE_PORT: String(port), CDN_BIND: '127.0.0.1', CDN_LOG_LEVEL: 'silent', CDN_PUBLISH_ENABLED: 'false', DATABASE_URL: core.databaseUrl, CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN });
    restarted = await startCore(config, pino({ level: 'silent' }));
    // Long enough for the edge's backoff (0.5, 1, 2 s…) to have found the new core and be held again.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    const version = await publishChange(restarted.url);
    const delay = await delayUntilServed(version, 10000);
    expect(delay, `served ${delay} ms after the publish answered`).to.be.below(1000);
  });
});

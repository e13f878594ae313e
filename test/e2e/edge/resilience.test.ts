import { expect } from 'chai';
import http from 'node:http';
import { TestCore } from '../../support/core.js';
import { EdgeProcess } from '../../support/edge-process.js';
import { createSite, publish, TestOrigin } from '../../support/edge-site.js';
import { eventually } from '../../support/eventually.js';
import { TcpGate } from '../../support/tcp-gate.js';

const TOKEN = 'cdnedge_e2e-resilience-token-0123456789abcd';

describe('cdn edge keeps serving while the core is down', function () {
  this.timeout(120000);
  let core: TestCore;
  let gate: TcpGate;
  let origin: TestOrigin;
  let edge: EdgeProcess | undefined;

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN });
    gate = await TcpGate.open(Number(new URL(core.url).port));
    origin = await TestOrigin.start('primary');
    await createSite(core, 'example.org', origin.port);
    await publish(core);
  });
  after(async () => {
    await edge?.stop();
    await gate?.close();
    await origin?.stop();
    await core?.stop();
  });

  it('serves from memory, then after a restart from disk, and delivers telemetry once when the core returns', async () => {
    edge = await EdgeProcess.start({ coreUrl: gate.url, token: TOKEN, workers: 2 });
    const dataDir = edge.dataDir;
    expect((await edge.request('www.example.org', '/before')).status).to.equal(200);
    await gate.close();
    for (let index = 0; index < 20; index++) expect((await edge.request('www.example.org', `/down/${index}`)).status).to.equal(200);
    await eventually('the edge to notice the core is down', async () => ((await edge!.waitReady()).config.pull_failures > 0 ? true : undefined));

    await edge.stop({ keepData: true });
    edge = await EdgeProcess.start({ coreUrl: gate.url, token: TOKEN, workers: 2, dataDir });
    expect((await edge.waitReady()).config.source).to.equal('disk');
    for (let index = 20; index < 30; index++) expect((await edge.request('www.example.org', `/down/${index}`)).status).to.equal(200);

    await gate.reopen();
    const paths = await eventually(
      'every usage event to arrive',
      async () => {
        const rows = await core.db.usageEvent.findMany({ where: { path: { startsWith: '/down/' } } });
        return rows.length >= 30 ? rows.map((row) => row.path) : undefined;
      },
      30000,
    );
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const again = await core.db.usageEvent.count({ where: { path: { startsWith: '/down/' } } });
    expect(new Set(paths).size, 'distinct paths').to.equal(30);
    expect(again, 'no duplicates').to.equal(30);
    await edge.stop();
    edge = undefined;
  });

  it('keeps the usage of requests served just before it was stopped', async () => {
    edge = await EdgeProcess.start({ coreUrl: gate.url, token: TOKEN, workers: 2 });
    const dataDir = edge.dataDir;
    await gate.close();
    for (let index = 0; index < 10; index++) expect((await edge.request('www.example.org', `/last/${index}`)).status).to.equal(200);
    await edge.stop({ keepData: true });
    await gate.reopen();
    edge = await EdgeProcess.start({ coreUrl: gate.url, token: TOKEN, workers: 2, dataDir });
    const count = () => core.db.usageEvent.count({ where: { path: { startsWith: '/last/' } } });
    await eventually('the usage of the last requests', async () => ((await count()) >= 10 ? true : undefined), 30000);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(await count(), 'no duplicates').to.equal(10);
    await edge.stop();
    edge = undefined;
  });
});

describe('cdn edge swaps snapshots under load without failing a request', function () {
  this.timeout(120000);
  let core: TestCore;
  let origin: TestOrigin;
  let edge: EdgeProcess;
  let domainId: string;

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN });
    origin = await TestOrigin.start('primary');
    domainId = (await createSite(core, 'swap.example', origin.port)).id;
    await publish(core);
    edge = await EdgeProcess.start({ coreUrl: core.url, token: TOKEN, workers: 2 });
  });
  after(async () => {
    await edge?.stop();
    await origin?.stop();
    await core?.stop();
  });

  it('answers every request while 10 new versions are activated', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    let running = true;
    const failures: string[] = [];
    let served = 0;
    const load = async () => {
      while (running) {
        const response = await edge.request('www.swap.example', `/load/${served % 50}`, { agent }).catch((error: Error) => ({ status: 0, text: error.message }));
        if (response.status !== 200) failures.push(`${response.status} ${response.text.slice(0, 80)}`);
        served++;
      }
    };
    const workers = Array.from({ length: 8 }, load);
    for (let index = 0; index < 10; index++) {
      await core.post(`/api/v1/domains/${domainId}/headers`, { name: `swap ${index}`, header_name: `x-swap-${index}`, value: 'on' }, 201);
      await edge.waitReady(await publish(core));
    }
    running = false;
    await Promise.all(workers);
    agent.destroy();
    expect(served).to.be.greaterThan(100);
    expect(failures).to.deep.equal([]);
  });
});

import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { TestCore, type Json } from '../../support/core.js';
import { EdgeProcess } from '../../support/edge-process.js';
import { createSite, publish, TestOrigin } from '../../support/edge-site.js';

const TOKEN = 'cdnedge_e2e-usage-totals-token-0123456789ab';
const SCRIPT = new URL('./usage-totals.lua', import.meta.url).pathname;
const BODY = 'x'.repeat(100);
const SECONDS = 10;

/** wrk (Debian package `wrk`) on `url` for SECONDS with 16 keep-alive connections: the responses it completed, and its output. */
function saturate(url: string, host: string): Promise<{ requests: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', ['-t2', '-c16', `-d${SECONDS}s`, '-H', `Host: ${host}`, '-s', SCRIPT, url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', (error) => reject(new Error(`wrk could not run (apt-get install wrk): ${error.message}`)));
    child.once('exit', (code) => {
      const requests = /(\d+) requests in/.exec(output);
      if (code !== 0 || !requests) return reject(new Error(`wrk failed (${code}):\n${output}`));
      resolve({ requests: Number(requests[1]), output });
    });
  });
}

/** The summary once its request total reached `atLeast` and stopped moving between two looks 1.5 s apart (the edge ships every second), or as it is after 30 s. */
async function settled(read: () => Promise<Json>, atLeast: number): Promise<Json> {
  const deadline = Date.now() + 30000;
  let last: number | undefined;
  for (;;) {
    const current = await read();
    if ((current.totals.requests >= atLeast && current.totals.requests === last) || Date.now() > deadline) return current;
    last = current.totals.requests;
    await new Promise((resolve) => setTimeout(resolve, 1500));
  }
}

describe('cdn edge usage totals at saturation', function () {
  this.timeout(90000);
  let core: TestCore;
  let origin: TestOrigin;
  let edge: EdgeProcess;
  let domainId: string;

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN });
    origin = await TestOrigin.start('primary', (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'public, max-age=600' }).end(BODY);
    });
    domainId = (await createSite(core, 'load.example', origin.port)).id;
    await publish(core);
    // A queue of 200 events, far below what 10 s of saturation make: the edge must fold, not drop.
    edge = await EdgeProcess.start({ coreUrl: core.url, token: TOKEN, workers: 2, env: { CDN_EDGE_TELEMETRY_QUEUE_MAX_ITEMS: '200', CDN_EDGE_TELEMETRY_BATCH_SIZE: '100' } });
  });
  after(async () => {
    await edge?.stop();
    await origin?.stop();
    await core?.stop();
  });

  it('counts every request wrk completed in analytics (within 0.1%): requests, bytes, statuses, cache statuses and countries', async () => {
    const served = await saturate(edge.url, 'www.load.example');
    const summary = async () => (await core.get(`/api/v1/domains/${domainId}/analytics/summary?bucket=minute&from=${Math.floor(Date.now() / 1000) - 3600}`)).data as Json;
    const totals = await settled(summary, served.requests * 0.999);
    const ready = await edge.waitReady();
    const { requests, bytes, status_2xx, cached_requests } = totals.totals;
    const detail = `wrk completed ${served.requests}, analytics ${requests}; /ready usage ${JSON.stringify(ready.telemetry.usage)}`;
    expect(Math.abs(requests - served.requests) / served.requests, detail).to.be.at.most(0.001);
    expect(bytes, 'bytes: every response has the same body').to.equal(requests * BODY.length);
    expect(status_2xx, 'statuses').to.equal(requests);
    const misses = await core.db.usageEvent.aggregate({ _sum: { count: true }, where: { domain_id: domainId, cache_status: 'miss' } });
    expect(cached_requests + Number(misses._sum.count), 'cache statuses: hits and misses').to.equal(requests);
    expect(totals.top_countries, 'countries (no GeoIP database: unknown)').to.deep.equal([{ country: 'unknown', requests }]);
    expect(ready.telemetry.usage.drops, `the queue was full and detail was folded: ${detail}`).to.be.greaterThan(0);
    expect(ready.telemetry.usage.lost_requests, detail).to.equal(0);
    expect(ready.telemetry.usage.requests, 'the requests /ready says the workers counted').to.equal(requests);
    expect(ready.telemetry.usage.client_ip_rate, 'the share of requests whose event kept the client address').to.be.within(0, 1);
  });
});

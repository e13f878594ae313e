import { expect } from 'chai';
import type { IncomingHttpHeaders } from 'node:http';
import type { OriginObservation } from '../../../src/edge/origin/observation.js';
import { OriginProber } from '../../../src/edge/origin/prober.js';
import { eventually } from '../../support/eventually.js';
import { closedPort, origin, snapshotDomain, startOrigin, type TestServer } from './support.js';

describe('edge origin prober', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('probes monitored origins only, with the apex as Host, and reports latency and jitter', async () => {
    const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
    const server: TestServer = await startOrigin((req, res) => {
      seen.push({ path: req.url ?? '', headers: req.headers });
      res.end('ok');
    });
    cleanups.push(() => server.close());
    const monitored = origin({ port: server.port, health_check_path: '/healthz' });
    const unmonitored = origin({ port: server.port });
    const observations: OriginObservation[] = [];
    const prober = new OriginProber({ intervalSeconds: 1, onObservation: (observation) => observations.push(observation) });
    cleanups.push(() => prober.stop());
    prober.update([snapshotDomain([monitored, unmonitored])]);
    await eventually('two probes', async () => (observations.length >= 2 ? true : undefined), 5000);
    expect(observations.every((o) => o.origin_id === monitored.id && o.source === 'probe' && o.success && o.http_status === 200)).to.equal(true);
    expect(observations[0].latency_ms).to.be.a('number');
    expect(observations[0].jitter_ms).to.equal(null);
    expect(observations[1].jitter_ms).to.be.a('number');
    expect(seen[0]).to.deep.include({ path: '/healthz' });
    expect(seen[0].headers.host).to.equal('example.test');
  });

  it('reports a connect failure and stops probing origins dropped from the config', async () => {
    const target = origin({ port: await closedPort(), health_check_path: '/' });
    const observations: OriginObservation[] = [];
    const prober = new OriginProber({ intervalSeconds: 1, onObservation: (observation) => observations.push(observation) });
    cleanups.push(() => prober.stop());
    prober.update([snapshotDomain([target])]);
    await eventually('a probe', async () => (observations.length >= 1 ? true : undefined), 5000);
    expect(observations[0]).to.include({ origin_id: target.id, success: false, failure_kind: 'connect' });
    prober.update([snapshotDomain([])]);
    const count = observations.length;
    await new Promise((resolve) => setTimeout(resolve, 1300));
    expect(observations.length).to.equal(count);
  });
});

import { expect } from 'chai';
import pino from 'pino';
import { BoundedQueue } from '../../../src/edge/agent/bounded-queue.js';
import { createCoreClient, type CoreClient } from '../../../src/edge/agent/core-client.js';
import type { OriginObservation, UsageEvent } from '../../../src/edge/agent/telemetry-items.js';
import { TelemetryShipper } from '../../../src/edge/agent/telemetry-shipper.js';
import { eventually } from '../../support/eventually.js';
import { TestCore } from '../../support/core.js';
import { CoreProxy } from './core-proxy.js';

const EDGE_TOKEN = 'cdnedge_agent-telemetry-tests-0123456789';
const logger = pino({ level: 'silent' });

describe('edge agent: bounded queue', () => {
  it('drops and counts an item over the item bound, never throwing', () => {
    const queue = new BoundedQueue<number>(2, 1000);
    expect([queue.push(1, 10), queue.push(2, 10), queue.push(3, 10)]).to.deep.equal([true, true, false]);
    expect({ depth: queue.depth, bytes: queue.bytes, drops: queue.drops }).to.deep.equal({ depth: 2, bytes: 20, drops: 1 });
  });

  it('drops and counts an item over the byte bound, and one that cannot be sized', () => {
    const queue = new BoundedQueue<string>(100, 25);
    expect([queue.push('a', 20), queue.push('b', 10), queue.push('c', 5), queue.push('d', Number.NaN)]).to.deep.equal([true, false, true, false]);
    expect({ depth: queue.depth, bytes: queue.bytes, drops: queue.drops }).to.deep.equal({ depth: 2, bytes: 25, drops: 2 });
  });

  it('hands out the oldest items first, in batches cut by count and bytes', () => {
    const queue = new BoundedQueue<number>(100, 10_000);
    for (let i = 0; i < 10; i++) queue.push(i, 100);
    expect(queue.takeBatch(3)).to.deep.equal({ items: [0, 1, 2], bytes: 300 });
    expect(queue.takeBatch(10, 250).items).to.deep.equal([3, 4]);
    expect(queue.takeBatch(10, 50).items).to.deep.equal([5]);
    expect(queue.takeBatch(10).items).to.deep.equal([6, 7, 8, 9]);
    expect({ depth: queue.depth, bytes: queue.bytes }).to.deep.equal({ depth: 0, bytes: 0 });
  });
});

describe('edge agent: telemetry shipping to a real core', () => {
  let core: TestCore;
  let proxy: CoreProxy;
  let client: CoreClient;
  const shippers: TelemetryShipper<unknown>[] = [];

  const usage = (n: number, from = 0): UsageEvent[] =>
    Array.from({ length: n }, (_, i) => ({ domain: 'telemetry.example', path: `/item/${from + i}`, status: 200, bytes: 100 + i, cache_status: 'MISS', timestamp: Math.floor(Date.now() / 1000) }));
  const usageShipper = (queue: BoundedQueue<UsageEvent>, batchSize = 10) => {
    const shipper = new TelemetryShipper({ client, path: '/api/v1/collector/usage', field: 'events', queue, batchSize, flushSeconds: 0.05, idempotent: true, logger });
    shippers.push(shipper as TelemetryShipper<unknown>);
    return shipper;
  };
  const fill = <T>(queue: BoundedQueue<T>, items: T[]) => items.forEach((item) => queue.push(item, JSON.stringify(item).length));
  const usageRows = () => core.db.usageEvent.count();

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN });
    await core.createDomain('telemetry.example');
    proxy = await CoreProxy.start(core.url);
    client = createCoreClient({ coreUrl: proxy.url, edgeId: 'edge-telemetry-1', token: EDGE_TOKEN, timeoutMs: 5000 });
  });
  beforeEach(async () => {
    proxy.mode = 'pass';
    proxy.answer = undefined;
    proxy.seen.length = 0;
    await core.db.usageEvent.deleteMany();
  });
  afterEach(() => {
    for (const shipper of shippers.splice(0)) shipper.stop();
  });
  after(async () => {
    client.close();
    await proxy.close();
    await core.stop();
  });

  it('ships queued events in batches of batchSize, several per tick', async () => {
    const queue = new BoundedQueue<UsageEvent>(1000, 1_000_000);
    fill(queue, usage(35));
    const shipper = usageShipper(queue);
    shipper.start();
    // The rows are committed before the core's answer reaches the shipper: wait for what the shipper counted.
    await eventually('35 events sent', async () => (shipper.status().sent === 35 ? true : undefined));
    expect(await usageRows()).to.equal(35);
    expect(proxy.to('/api/v1/collector/usage').map((seen) => seen.body.events.length)).to.deep.equal([10, 10, 10, 5]);
    expect(shipper.status()).to.include({ depth: 0, sent: 35, rejected: 0, failures: 0 });
  });

  it('delivers every event exactly once while the core is down, then up again', async () => {
    const queue = new BoundedQueue<UsageEvent>(1000, 1_000_000);
    const shipper = usageShipper(queue);
    proxy.mode = 'down';
    shipper.start();
    fill(queue, usage(15));
    await eventually('a failed push', async () => (shipper.status().failures >= 1 ? true : undefined));
    fill(queue, usage(5, 15));
    expect(shipper.status().in_retry + shipper.status().depth).to.equal(20);
    proxy.mode = 'pass';
    await eventually('20 usage rows', async () => (shipper.status().sent === 20 ? true : undefined), 10_000);
    expect(await usageRows()).to.equal(20);
    expect(shipper.status().last_error).to.match(/^core unreachable: /);
  });

  it('retries a batch whose answer was lost with the same idempotency key, and the core counts it once', async () => {
    const queue = new BoundedQueue<UsageEvent>(1000, 1_000_000);
    fill(queue, usage(8));
    const shipper = usageShipper(queue);
    proxy.mode = 'lose-answer';
    shipper.start();
    await eventually('a lost answer', async () => (shipper.status().failures >= 1 ? true : undefined));
    proxy.mode = 'pass';
    await eventually('the retried batch delivered', async () => (shipper.status().sent === 8 ? true : undefined), 10_000);
    const pushes = proxy.to('/api/v1/collector/usage');
    expect(pushes.length).to.be.at.least(2);
    const keys = new Set(pushes.map((seen) => seen.body.idempotency_key));
    expect(keys.size).to.equal(1);
    expect([...keys][0]).to.match(/^edge-telemetry-1-[0-9a-f-]{36}$/);
    expect(await usageRows()).to.equal(8);
  });

  it('drops and counts a batch the core refuses as a whole, and goes on with the next', async () => {
    const queue = new BoundedQueue<UsageEvent>(1000, 1_000_000);
    fill(queue, usage(4));
    let refused = false;
    proxy.answer = () => (refused ? undefined : ((refused = true), { status: 422, body: { error: 'validation failed', field: 'events' } }));
    const shipper = usageShipper(queue, 2);
    shipper.start();
    await eventually('the second batch', async () => (shipper.status().sent === 2 ? true : undefined));
    expect(shipper.status()).to.include({ rejected_batches: 1, rejected: 2, failures: 0 });
    expect(shipper.status().last_error).to.equal('batch of 2 refused: 422 validation failed: events');
    expect(await usageRows()).to.equal(2);
  });

  it('sends a batch the core finds too large in halves', async () => {
    const queue = new BoundedQueue<UsageEvent>(1000, 1_000_000);
    fill(queue, usage(6));
    let refused = false;
    proxy.answer = () => (refused ? undefined : ((refused = true), { status: 413, body: { error: 'request body too large' } }));
    const shipper = usageShipper(queue, 6);
    shipper.start();
    await eventually('both halves', async () => (shipper.status().sent === 6 ? true : undefined));
    expect(proxy.to('/api/v1/collector/usage').map((seen) => seen.body.events.length)).to.deep.equal([6, 3, 3]);
    expect(await usageRows()).to.equal(6);
  });

  it('counts the items the core refuses one by one in a 200 answer', async () => {
    const queue = new BoundedQueue<UsageEvent>(1000, 1_000_000);
    fill(queue, [...usage(2), { ...usage(1)[0], status: 1000 }]);
    const shipper = usageShipper(queue);
    shipper.start();
    await eventually('the batch', async () => (shipper.status().sent === 3 ? true : undefined));
    expect(shipper.status()).to.include({ rejected: 1, rejected_batches: 0 });
    expect(await usageRows()).to.equal(2);
  });

  it('sends origin health observations without an idempotency key, which their schema lacks', async () => {
    const queue = new BoundedQueue<OriginObservation>(1000, 1_000_000);
    fill(queue, [{ origin_id: 'unknown-origin', source: 'probe', success: true, latency_ms: 12, timestamp: Math.floor(Date.now() / 1000) }]);
    const shipper = new TelemetryShipper({ client, path: '/api/v1/collector/origin-health', field: 'observations', queue, batchSize: 10, flushSeconds: 0.05, idempotent: false, logger });
    shippers.push(shipper as TelemetryShipper<unknown>);
    shipper.start();
    await eventually('the observation', async () => (shipper.status().sent === 1 ? true : undefined));
    const [push] = proxy.to('/api/v1/collector/origin-health');
    expect(Object.keys(push.body)).to.deep.equal(['observations']);
    expect(push.answered).to.equal(200);
  });

  it('flushes what is queued on shutdown, within its time bound', async () => {
    const queue = new BoundedQueue<UsageEvent>(1000, 1_000_000);
    const shipper = new TelemetryShipper({ client, path: '/api/v1/collector/usage', field: 'events', queue, batchSize: 10, flushSeconds: 3600, idempotent: true, logger });
    shipper.start();
    fill(queue, usage(25));
    await shipper.flush(5000);
    expect(await usageRows()).to.equal(25);
    proxy.mode = 'down';
    fill(queue, usage(5));
    const started = Date.now();
    await shipper.flush(2000);
    expect(Date.now() - started).to.be.below(2000);
    expect(shipper.status().in_retry).to.equal(5);
  });
});

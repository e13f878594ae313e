import { expect } from 'chai';
import { serializedSize, type UsageEvent } from '../../../src/edge/agent/telemetry-items.js';
import { UsageQueue } from '../../../src/edge/agent/usage-queue.js';

const MINUTE = 1_700_000_040;
const event = (extra: Partial<UsageEvent> = {}): UsageEvent => ({ domain: 'www.example.com', path: '/', status: 200, bytes: 10, count: 1, cache_status: 'hit', timestamp: MINUTE + 5, client_country: 'DE', client_ip: '192.0.2.1', ...extra });

function takeAll(queue: UsageQueue): UsageEvent[] {
  const items: UsageEvent[] = [];
  for (let batch = queue.takeBatch(3); batch.items.length > 0; batch = queue.takeBatch(3)) items.push(...batch.items);
  return items;
}

const requestsOf = (events: UsageEvent[]) => events.reduce((sum, item) => sum + (item.count ?? 1), 0);

describe('edge agent: usage queue', () => {
  it('folds events past its byte bound into per-minute totals of their domain, status, cache status and country, counts and bytes exact', () => {
    const queue = new UsageQueue(10, 2 * serializedSize(event({ path: '/a' })));
    const pushed = [event({ path: '/a' }), event({ path: '/b' }), event({ path: '/c', count: 40, bytes: 400 }), event({ path: '/d', timestamp: MINUTE + 59, bytes: 5 }), event({ path: '/e', status: 404 }), event({ path: '/f', timestamp: MINUTE + 60 })];
    expect(pushed.map((item) => queue.push(item))).to.deep.equal([true, true, false, false, false, false]);
    expect(queue.depth).to.equal(5);
    expect(queue.drops, 'requests whose detail was folded').to.equal(43);
    const shipped = takeAll(queue);
    expect(requestsOf(shipped)).to.equal(45);
    expect(shipped.reduce((sum, item) => sum + item.bytes, 0)).to.equal(445);
    expect(shipped.slice(2)).to.deep.equal([
      { ...event({ path: '/(other)', timestamp: MINUTE, client_ip: null }), count: 41, bytes: 405 },
      { ...event({ path: '/(other)', timestamp: MINUTE, client_ip: null, status: 404 }), count: 1, bytes: 10 },
      { ...event({ path: '/(other)', timestamp: MINUTE + 60, client_ip: null }), count: 1, bytes: 10 },
    ]);
    expect(queue.depth).to.equal(0);
  });

  it('moves its totals into the queue as soon as a batch makes room, before later events', () => {
    const queue = new UsageQueue(2, 100_000);
    for (const path of ['/a', '/b', '/c']) queue.push(event({ path }));
    expect(queue.takeBatch(2).items.map((item) => item.path)).to.deep.equal(['/a', '/b']);
    expect(queue.push(event({ path: '/later' }))).to.equal(true);
    expect(takeAll(queue).map((item) => [item.path, item.count])).to.deep.equal([
      ['/(other)', 1],
      ['/later', 1],
    ]);
  });

  it('with its totals full, adds a request to its minute total without a country, and counts as lost only what fits nowhere', () => {
    const queue = new UsageQueue(1, 100_000);
    queue.push(event());
    queue.push(event({ client_country: null }));
    queue.push(event({ client_country: 'FR', count: 3 }));
    queue.push(event({ status: 503, count: 2 }));
    expect({ drops: queue.drops, lost: queue.lostRequests }).to.deep.equal({ drops: 4, lost: 2 });
    expect(takeAll(queue).map((item) => [item.path, item.client_country, item.count])).to.deep.equal([
      ['/', 'DE', 1],
      ['/(other)', null, 4],
    ]);
  });

  it('folds an event that cannot be serialized instead of losing its requests', () => {
    const queue = new UsageQueue(10, 100_000);
    const cyclic: UsageEvent & { self?: unknown } = event({ count: 7 });
    cyclic.self = cyclic;
    expect(queue.push(cyclic)).to.equal(false);
    expect(takeAll(queue)).to.deep.equal([{ ...event({ path: '/(other)', timestamp: MINUTE, client_ip: null }), count: 7 }]);
  });
});
